import { createHash, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../platform/crypto/node-sha256.ts';

/**
 * AWS Signature Version 4 of a request to the AWS API adapter (decisions.md, "The AWS Secrets Manager API"), checked
 * the way AWS checks it: the Authorization header parsed, the credential scope's region and service, the date within
 * 5 minutes, the payload's hash, and the signature recomputed with the AWS SDK's own signer (`@smithy/signature-v4`)
 * over the headers the request says it signed, compared in constant time. Hand-written only where no library
 * verifies (the SDK signs, it does not check); no message carries the signature this side computed.
 */

/**
 * The two protocols of `POST /` by the service name of their credential scope, as AWS's SDKs sign them: Secrets
 * Manager (AWS JSON 1.1) and STS (AWS Query, GetCallerIdentity only).
 */
export type SigningService = 'secretsmanager' | 'sts';
/** How far `X-Amz-Date` may be from now, either way. */
export const MAX_SKEW_MS = 5 * 60_000;

/** The request as the adapter received it: header names in lower case, the body's bytes as the client sent them. */
export interface SignedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the Authorization header says. */
export interface SigV4Authorization {
  accessKeyId: string;
  /** The credential scope's day, `YYYYMMDD`. */
  day: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Why a request is refused, as AWS names it. */
export type SigV4Refusal = { type: 'MissingAuthenticationToken' | 'IncompleteSignature' | 'InvalidSignatureException'; message: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([A-Za-z0-9]{16,128})\/(\d{8})\/([a-z0-9-]{1,32})\/([a-z0-9-]{1,64})\/aws4_request, ?SignedHeaders=([a-z0-9;-]{1,2048}), ?Signature=([0-9a-f]{64})$/;

/** Parses the Authorization header, or says why it cannot be used (nothing is read or checked yet). */
export function parseAuthorization(header: string | undefined): SigV4Authorization | SigV4Refusal {
  if (header === undefined || header.trim() === '') {
    return { type: 'MissingAuthenticationToken', message: 'Request is missing Authentication Token' };
  }
  const match = AUTHORIZATION.exec(header.trim());
  if (!match) {
    return {
      type: 'IncompleteSignature',
      message: 'Authorization header requires AWS4-HMAC-SHA256 with Credential, SignedHeaders and Signature parameters',
    };
  }
  const [, accessKeyId, day, region, service, signed, signature] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return { accessKeyId, day, region, service, signedHeaders: signed.split(';'), signature };
}

export const isRefusal = (value: SigV4Authorization | SigV4Refusal | undefined): value is SigV4Refusal =>
  value !== undefined && 'type' in value;

/** `X-Amz-Date` (`YYYYMMDDTHHMMSSZ`) as a Date, or undefined. */
function amzDate(text: string | undefined): Date | undefined {
  const match = text && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return undefined;
  const date = new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const invalid = (message: string): SigV4Refusal => ({ type: 'InvalidSignatureException', message });

/**
 * The headers that say what a request does must be signed (decisions.md, "Hardening v1.4"): for Secrets Manager
 * `X-Amz-Target` always, and `Content-Type` when sent. The signature covers only the headers it names, so with the
 * target left out a request captured within its 5 minutes could be sent again as another operation over the same
 * signed body (a read replayed as a delete). STS's query requests carry no target: their `Action` is in the body,
 * which every signature covers (its hash is in the canonical request), so only `Content-Type` is asked of them; and
 * a target added to a captured STS request makes it a Secrets Manager request, which its `sts` scope cannot sign.
 * Every AWS SDK and the AWS CLI sign both; a signature that leaves either out is AWS's IncompleteSignature. Answers
 * the refusal, or undefined.
 */
export function checkOperationSigned(request: SignedRequest, auth: SigV4Authorization, service: SigningService): SigV4Refusal | undefined {
  const required = [
    ...(service === 'secretsmanager' ? ['x-amz-target'] : []),
    ...(request.headers['content-type'] === undefined ? [] : ['content-type']),
  ];
  const unsigned = required.find((name) => !auth.signedHeaders.includes(name));
  if (unsigned === undefined) return undefined;
  return { type: 'IncompleteSignature', message: `The ${unsigned} header must be among the SignedHeaders.` };
}

/**
 * Checks everything the signature covers but the signature itself: the scope's region and service (the protocol's:
 * a signature for STS does not run a Secrets Manager operation, nor the reverse), the date and its day, the payload
 * hash, and that the operation (checkOperationSigned), the host, the date and (when sent) the session token are
 * signed. The date may be MAX_SKEW_MS from now, or `maxSkewMs` (the local STS stand-in allows STS's 15 minutes).
 * Answers the signing date, or the refusal.
 */
export function checkScope(
  request: SignedRequest,
  auth: SigV4Authorization,
  expected: { region: string; service: SigningService; now: number; maxSkewMs?: number },
): Date | SigV4Refusal {
  if (auth.service !== expected.service) return invalid(`Credential should be scoped to correct service: '${expected.service}'.`);
  if (auth.region !== expected.region) return invalid(`Credential should be scoped to a valid region: '${expected.region}'.`);
  const date = amzDate(request.headers['x-amz-date']);
  if (!date) return { type: 'IncompleteSignature', message: 'X-Amz-Date must be a valid date in the form YYYYMMDDTHHMMSSZ' };
  if (!request.headers['x-amz-date']!.startsWith(auth.day))
    return invalid('Date in Credential scope does not match YYYYMMDD from X-Amz-Date.');
  const maxSkewMs = expected.maxSkewMs ?? MAX_SKEW_MS;
  if (Math.abs(expected.now - date.getTime()) > maxSkewMs) {
    return invalid(`Signature expired: the request date is more than ${maxSkewMs / 60_000} minutes from the current time.`);
  }
  const operation = checkOperationSigned(request, auth, expected.service);
  if (operation) return operation;
  for (const name of ['host', 'x-amz-date', ...(request.headers['x-amz-security-token'] === undefined ? [] : ['x-amz-security-token'])]) {
    if (!auth.signedHeaders.includes(name)) return invalid(`The ${name} header must be signed.`);
  }
  if (auth.signedHeaders.some((name) => request.headers[name] === undefined))
    return invalid('A signed header is missing from the request.');
  // The payload is what is signed: a declared hash must be the body's own (the signer would trust the header).
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== createHash('sha256').update(request.body).digest('hex')) {
    return invalid('The request body does not match x-amz-content-sha256.');
  }
  return date;
}

/**
 * Recomputes the signature with the credentials the key id names and compares it with the request's in constant
 * time. True when they are the same.
 */
export async function signatureHolds(
  request: SignedRequest,
  auth: SigV4Authorization,
  credentials: { secretAccessKey: string; sessionToken?: string | undefined },
  signingDate: Date,
): Promise<boolean> {
  const signer = new SignatureV4({
    service: auth.service,
    region: auth.region,
    credentials: { accessKeyId: auth.accessKeyId, ...credentials },
    sha256: NodeSha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const headers = Object.fromEntries(auth.signedHeaders.map((name) => [name, request.headers[name]!]));
  const host = request.headers.host ?? '';
  const recomputed = await signer.sign(
    {
      method: request.method,
      protocol: 'https:',
      hostname: host.replace(/:\d+$/, ''),
      path: request.path,
      query: request.query,
      headers,
      body: request.body,
    },
    { signingDate, signableHeaders: new Set(auth.signedHeaders), unsignableHeaders: new Set() },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(recomputed.headers.authorization ?? recomputed.headers.Authorization ?? ''))?.[1];
  return expected !== undefined && timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature));
}
