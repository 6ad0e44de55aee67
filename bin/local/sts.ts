/**
 * The local stack's stand-in for AWS STS (decisions.md, "Workload identity"): it answers GetCallerIdentity for
 * identities kept in `LOCAL_DIR`, after checking the request's Signature Version 4 the way STS does (service `sts`,
 * region `us-east-1`), by recomputing it with the AWS SDK's own signer (`@smithy/signature-v4`) over the headers the
 * request says it signed. A bad signature, an unknown access key id or a stale date get STS's error XML, so the
 * service's IAM login is tested against real signatures, never a stub that says yes.
 *
 * Hand-written: no maintained library serves STS (moto and LocalStack are Python and need Docker here); the
 * signature itself is the SDK's, and this file only parses and compares.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../sdk/src/node-sha256.ts';

/** The SDK's SHA-256 for the signer, answered from here too for the tests that sign requests to the stand-in. */
export { NodeSha256 };

/** An identity the stand-in knows: its credentials and the ARN it answers for them. */
export interface LocalIamIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  /** `arn:aws:iam::<account>:role/<name>` (answered as an assumed role) or `arn:aws:iam::<account>:user/<name>`. */
  arn: string;
}

/** Where the identities are kept, under the local stack's folder. */
export const IDENTITIES_FILE = 'sts-identities.json';
const REGION = 'us-east-1';
const SERVICE = 'sts';
/** STS refuses a request signed more than 15 minutes from its clock. */
const SKEW_MS = 15 * 60_000;
const ARN = /^arn:aws:iam::(\d{12}):(role|user)\/([\w+=,.@/-]{1,512})$/;

/** The identities of `localDir` (none yet: an empty list). */
export function readIdentities(localDir: string): LocalIamIdentity[] {
  const file = join(localDir, IDENTITIES_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalIamIdentity[]) : [];
}

/** Makes an identity for `arn` with fresh credentials and keeps it (file mode 600); answers it. */
export function createIdentity(localDir: string, arn: string): LocalIamIdentity {
  if (!ARN.test(arn))
    throw new Error(`--arn: must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/payments-api; got "${arn}"`);
  const identity: LocalIamIdentity = {
    accessKeyId: `AKIALOCAL${randomBytes(6).toString('hex').toUpperCase()}`.slice(0, 20),
    secretAccessKey: randomBytes(30).toString('base64url'),
    arn,
  };
  writeFileSync(join(localDir, IDENTITIES_FILE), JSON.stringify([...readIdentities(localDir), identity], null, 2), { mode: 0o600 });
  return identity;
}

/** A request as the stand-in received it. */
export interface StsRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** STS's answer: a status and XML. */
export interface StsAnswer {
  status: number;
  body: string;
}

const error = (status: number, code: string, message: string): StsAnswer => ({
  status,
  body: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
});

/** `x-amz-date` as a Date, or undefined. */
function amzDate(text: string | undefined): Date | undefined {
  const match = text && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return match ? new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`) : undefined;
}

/** The answer to one request, given the identities it may name and the time. */
export async function answerSts(request: StsRequest, identities: readonly LocalIamIdentity[], now: number): Promise<StsAnswer> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      headers.authorization ?? '',
    );
  if (!auth) return error(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  const [, accessKeyId, day, region, service, signedList, signature] = auth as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const identity = identities.find((candidate) => candidate.accessKeyId === accessKeyId);
  if (!identity) return error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  if (region !== REGION || service !== SERVICE)
    return error(403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid region and service ${SERVICE}.`);
  const date = amzDate(headers['x-amz-date']);
  if (!date || !date.toISOString().replace(/-/g, '').startsWith(day))
    return error(403, 'IncompleteSignature', 'The request must contain a valid x-amz-date that matches the credential scope.');
  if (Math.abs(now - date.getTime()) > SKEW_MS)
    return error(403, 'SignatureDoesNotMatch', 'Signature expired: the request date is more than 15 minutes from the current time.');
  // The payload is what is signed: a declared hash must be the body's own (the signer trusts the header otherwise).
  const declared = headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== createHash('sha256').update(request.body).digest('hex')) {
    return error(403, 'SignatureDoesNotMatch', 'The request body does not match x-amz-content-sha256.');
  }
  const signed = signedList.split(';');
  if (!signed.includes('host')) return error(403, 'SignatureDoesNotMatch', 'The host header must be signed.');
  const signer = new SignatureV4({
    service: SERVICE,
    region: REGION,
    credentials: identity,
    sha256: NodeSha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const signable = Object.fromEntries(signed.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]!]));
  if (Object.keys(signable).length !== signed.length)
    return error(403, 'SignatureDoesNotMatch', 'A signed header is missing from the request.');
  const [path, query = ''] = request.path.split('?') as [string, string?];
  const recomputed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host!.split(':')[0]!,
      path,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers: signable,
      body: request.body,
    },
    { signingDate: date, signableHeaders: new Set(signed), unsignableHeaders: new Set() },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(recomputed.headers.authorization ?? recomputed.headers.Authorization))?.[1] ?? '';
  if (expected.length !== 64 || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
    return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  const form = new URLSearchParams(request.body);
  if (request.method !== 'POST' || form.get('Action') !== 'GetCallerIdentity')
    return error(400, 'InvalidAction', 'Could not find operation ' + (form.get('Action') ?? '') + ' for version 2011-06-15');
  const [, account, kind, name] = ARN.exec(identity.arn)!;
  const arn = kind === 'role' ? `arn:aws:sts::${account}:assumed-role/${name!.split('/').at(-1)}/local-session` : identity.arn;
  return {
    status: 200,
    body: `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>${arn}</Arn><UserId>${identity.accessKeyId}:local-session</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
  };
}

/** Reads a request's body (at most 64 KiB, as STS's query API). */
async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 65_536) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the stand-in on 127.0.0.1 (identities read from `localDir` on every request, so new ones count at once). */
export async function startLocalSts(localDir: string, port = 0): Promise<{ endpoint: string; server: Server }> {
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) =>
        answerSts(
          { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers as Record<string, string>, body },
          readIdentities(localDir),
          Date.now(),
        ),
      )
      .then(
        (answer) => response.writeHead(answer.status, { 'content-type': 'text/xml' }).end(answer.body),
        () =>
          response.writeHead(400, { 'content-type': 'text/xml' }).end(error(400, 'MalformedInput', 'The request could not be read.').body),
      );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { endpoint: `http://127.0.0.1:${address.port}/`, server };
}
