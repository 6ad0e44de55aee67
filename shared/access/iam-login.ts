/**
 * The checks of an AWS IAM login (decisions.md, "Workload identity: login with AWS IAM or OIDC") that need no I/O:
 * the signed GetCallerIdentity request a workload sends is the one request this service will replay to STS, and
 * nothing about it is left to the caller. Vault's IAM login had to be fixed twice for what a caller could choose
 * (CVE-2020-16250: the URL and headers; then an unsigned server-id header): here the endpoint, method and body are
 * fixed, the headers are an allow-list, and the server id must be present, equal ours and be signed. The signature
 * itself is STS's to check; the answer's ARN is read by `callerArnOf` and matched by `principalMatches`.
 */
import { globMatcher } from '../platform/glob.ts';

/** The one body a login may carry: GetCallerIdentity, and nothing else. */
export const GET_CALLER_IDENTITY_BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

/** The header that binds a signed login to this deployment, so one captured by another service cannot be replayed here. */
export const SERVER_ID_HEADER = 'x-service-server-id';

/** The only headers a login's signed request may carry (names compared case-insensitively). */
export const ALLOWED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-type',
  'content-length',
  'x-amz-date',
  'x-amz-security-token',
  'x-amz-content-sha256',
  'authorization',
  'user-agent',
  SERVER_ID_HEADER,
]);

/** How far a signed request's `x-amz-date` may be from now, either way. */
export const DATE_WINDOW_MS = 5 * 60_000;

/** A signed request as a login body carries it. */
export interface SignedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** What the service checks a signed request against. */
export interface IamLoginSettings {
  /** The configured STS endpoint (the stack's regional one), e.g. `https://sts.eu-west-1.amazonaws.com/`. */
  stsEndpoint: string;
  /** This deployment's server id (`IAM_SERVER_ID`). */
  serverId: string;
  now: number;
}

/** A check that failed: its message names the check and never quotes the signature or a token. */
export class IamLoginRefused extends Error {
  readonly reason: string;

  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

const refuse = (reason: string, message: string): never => {
  throw new IamLoginRefused(reason, message);
};

/** A URL in one canonical spelling (WHATWG), so `HTTPS://STS…:443/` and `https://sts…/` compare equal. */
function canonicalUrl(text: string): string | undefined {
  return URL.canParse(text) ? new URL(text).href : undefined;
}

/** `x-amz-date` (`YYYYMMDDTHHMMSSZ`) as epoch milliseconds, or undefined. */
function amzDate(text: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  return back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? ms : undefined;
}

/** The SignedHeaders of a SigV4 `Authorization` header, lower-cased, or undefined when it is not one. */
function signedHeadersOf(authorization: string): string[] | undefined {
  const match = /^AWS4-HMAC-SHA256 Credential=[^,\s]+, ?SignedHeaders=([a-z0-9;-]+), ?Signature=[0-9a-f]{64}$/.exec(authorization);
  return match?.[1]!.split(';');
}

/**
 * Checks everything about a login's signed request that needs no I/O, in a fixed order; throws IamLoginRefused for
 * the first check that fails. Answers the headers to replay (names lower-cased), unchanged otherwise.
 */
export function checkSignedRequest(request: SignedRequest, settings: IamLoginSettings): Record<string, string> {
  const expected = canonicalUrl(settings.stsEndpoint);
  if (!expected || canonicalUrl(request.url) !== expected) refuse('endpoint', 'signedRequest.url: must be the configured STS endpoint');
  if (request.method !== 'POST') refuse('method', 'signedRequest.method: must be POST');
  if (request.body !== GET_CALLER_IDENTITY_BODY) refuse('action', `signedRequest.body: must be exactly ${GET_CALLER_IDENTITY_BODY}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (!ALLOWED_HEADERS.has(lower)) refuse('header', `signedRequest.headers: ${lower} is not allowed`);
    if (lower in headers) refuse('header', `signedRequest.headers: ${lower} is given twice`);
    if (typeof value !== 'string') refuse('header', `signedRequest.headers: ${lower} must be a string`);
    // What fetch would refuse to send (a line break, a control character) is refused here, as the caller's fault.
    if (!/^[\t\x20-\x7e]*$/.test(value)) refuse('header', `signedRequest.headers: ${lower} has a character a header cannot carry`);
    headers[lower] = value;
  }
  const serverId = headers[SERVER_ID_HEADER];
  if (serverId === undefined) refuse('server_id', `signedRequest.headers: ${SERVER_ID_HEADER} is required`);
  if (serverId !== settings.serverId) refuse('server_id', `signedRequest.headers: ${SERVER_ID_HEADER} is not this service's id`);
  const signed = headers.authorization === undefined ? undefined : signedHeadersOf(headers.authorization);
  if (!signed) refuse('signature', 'signedRequest.headers: authorization must be an AWS Signature Version 4');
  if (!signed!.includes(SERVER_ID_HEADER)) refuse('server_id', `signedRequest.headers: ${SERVER_ID_HEADER} must be signed`);
  const date = headers['x-amz-date'] === undefined ? undefined : amzDate(headers['x-amz-date']);
  if (date === undefined) refuse('date', 'signedRequest.headers: x-amz-date is required (YYYYMMDDTHHMMSSZ)');
  if (!signed!.includes('x-amz-date')) refuse('date', 'signedRequest.headers: x-amz-date must be signed');
  if (Math.abs(settings.now - date!) > DATE_WINDOW_MS) refuse('date', 'signedRequest.headers: x-amz-date is more than 5 minutes from now');
  return headers;
}

/**
 * The caller's ARN from STS's GetCallerIdentity answer (XML), read strictly: exactly one `<Arn>` inside
 * `<GetCallerIdentityResult>`, of an IAM user, an IAM role or an STS assumed role; anything else is undefined.
 */
export function callerArnOf(xml: string): string | undefined {
  const result = /<GetCallerIdentityResult>([\s\S]*?)<\/GetCallerIdentityResult>/.exec(xml);
  if (!result || xml.indexOf('<GetCallerIdentityResult>', result.index + 1) !== -1) return undefined;
  const arns = [...result[1]!.matchAll(/<Arn>([^<]*)<\/Arn>/g)];
  if (arns.length !== 1) return undefined;
  const arn = arns[0]![1]!;
  return /^arn:aws[a-z-]*:(?:iam::\d{12}:(?:user|role)\/[\w+=,.@/-]{1,512}|sts::\d{12}:assumed-role\/[\w+=,.@-]{1,64}\/[\w+=,.@-]{2,64})$/.test(
    arn,
  )
    ? arn
    : undefined;
}

/** The ARN principals are matched as: an assumed role `arn:aws:sts::A:assumed-role/R/S` is its role `arn:aws:iam::A:role/R`. */
export function principalArnOf(callerArn: string): string {
  const assumed = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(callerArn);
  return assumed ? `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}` : callerArn;
}

/** Whether the principal ARN matches one of the key's patterns (the globs of permissions: `*` stops at `/`). */
export function principalMatches(principalArn: string, patterns: readonly string[]): boolean {
  return globMatcher(patterns)(principalArn);
}
