/**
 * The local stack's stand-in for AWS STS (decisions.md, "Workload identity"): it answers GetCallerIdentity for
 * identities kept in `LOCAL_DIR`, after checking the request's Signature Version 4 the way STS does (service `sts`,
 * region `us-east-1`, 15 minutes of skew) with the service's one verifier (shared/aws/sigv4.ts, which recomputes it
 * with the AWS SDK's own signer over the headers the request says it signed). A bad signature, an unknown access key
 * id or a stale date get STS's error XML, so the service's IAM login is tested against real signatures, never a stub
 * that says yes.
 *
 * Hand-written: no maintained library serves STS (moto and LocalStack are Python and need Docker here); the
 * signature is checked by the verifier, and this file only names its refusals as STS does and answers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import {
  checkScope,
  isRefusal,
  parseAuthorization,
  signatureHolds,
  type SignedRequest,
  type SigV4Refusal,
} from '../../shared/aws/index.ts';

/** SHA-256 for the AWS SDK's signer, answered from here too for the tests that sign requests to the stand-in. */
export { NodeSha256 } from '../../shared/platform/crypto/node-sha256.ts';

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

/** STS's name for a refusal of the shared verifier: AWS's JSON protocols say InvalidSignatureException. */
const stsRefusal = (refusal: SigV4Refusal): StsAnswer =>
  error(403, refusal.type === 'InvalidSignatureException' ? 'SignatureDoesNotMatch' : refusal.type, refusal.message);

/** The answer to one request, given the identities it may name and the time. */
export async function answerSts(request: StsRequest, identities: readonly LocalIamIdentity[], now: number): Promise<StsAnswer> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const auth = parseAuthorization(headers.authorization);
  if (isRefusal(auth)) return stsRefusal(auth);
  const identity = identities.find((candidate) => candidate.accessKeyId === auth.accessKeyId);
  if (!identity) return error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  const [path, query = ''] = request.path.split('?') as [string, string?];
  const signed: SignedRequest = {
    method: request.method,
    path,
    query: Object.fromEntries(new URLSearchParams(query)),
    headers,
    body: Buffer.from(request.body, 'utf8'),
  };
  const date = checkScope(signed, auth, { region: REGION, service: 'sts', now, maxSkewMs: SKEW_MS });
  if (!(date instanceof Date)) return stsRefusal(date);
  if (!(await signatureHolds(signed, auth, { secretAccessKey: identity.secretAccessKey }, date))) {
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
