import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import {
  checkScope,
  isRefusal,
  parseAuthorization,
  signatureHolds,
  type SignedRequest,
  type SigningService,
  type SigV4Authorization,
} from '../../../shared/aws/sigv4.ts';
import { NodeSha256 } from '../../../sdk/src/node-sha256.ts';

const NOW = Date.parse('2026-11-28T06:00:00Z');
const KEY = { accessKeyId: 'AKSMTESTTESTTESTTEST', secretAccessKey: 'a'.repeat(40) };
const REGION = 'us-east-1';

/** Signs a request as the AWS SDK does (the same signer class a client uses). */
async function signed(
  body: string,
  options: {
    at?: number;
    region?: string;
    service?: string;
    credentials?: typeof KEY & { sessionToken?: string };
    payloadHeader?: boolean;
    /** Headers sent but left out of the signature. */
    unsigned?: string[];
    /** Headers not sent at all. */
    omit?: string[];
  } = {},
): Promise<SignedRequest> {
  const signer = new SignatureV4({
    service: options.service ?? 'secretsmanager',
    region: options.region ?? REGION,
    credentials: options.credentials ?? KEY,
    sha256: NodeSha256,
    // boto3 and the AWS CLI send no x-amz-content-sha256 outside S3; the JavaScript SDK does.
    applyChecksum: options.payloadHeader ?? true,
  });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 3000,
      path: '/',
      headers: Object.fromEntries(
        Object.entries({
          host: '127.0.0.1:3000',
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': 'secretsmanager.GetSecretValue',
        }).filter(([name]) => !options.omit?.includes(name)),
      ),
      body,
    },
    { signingDate: new Date(options.at ?? NOW), ...(options.unsigned && { unsignableHeaders: new Set(options.unsigned) }) },
  );
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
  return { method: 'POST', path: '/', query: {}, headers, body: Buffer.from(body) };
}

async function verify(
  request: SignedRequest,
  secret = KEY.secretAccessKey,
  sessionToken?: string,
  service: SigningService = 'secretsmanager',
) {
  const auth = parseAuthorization(request.headers.authorization);
  if (isRefusal(auth)) return auth;
  const date = checkScope(request, auth, { region: REGION, service, now: NOW });
  if (!(date instanceof Date)) return date;
  return (await signatureHolds(request, auth as SigV4Authorization, { secretAccessKey: secret, sessionToken }, date))
    ? 'ok'
    : 'bad signature';
}

describe('SigV4 verification', () => {
  it('accepts what the AWS SDK signs, with and without a session token', async () => {
    expect(await verify(await signed('{"SecretId":"a/b/C"}'))).toBe('ok');
    const temporary = { ...KEY, sessionToken: 'st_session' };
    expect(await verify(await signed('{}', { credentials: temporary }), KEY.secretAccessKey, 'st_session')).toBe('ok');
  });

  it('refuses another secret, a changed body, header or session token', async () => {
    const request = await signed('{"SecretId":"a/b/C"}');
    expect(await verify(request, 'b'.repeat(40))).toBe('bad signature');
    expect(await verify({ ...request, body: Buffer.from('{"SecretId":"a/b/D"}') })).toMatchObject({ type: 'InvalidSignatureException' });
    const unhashed = await signed('{"SecretId":"a/b/C"}', { payloadHeader: false });
    expect(unhashed.headers['x-amz-content-sha256']).toBeUndefined();
    expect(await verify(unhashed)).toBe('ok');
    expect(await verify({ ...unhashed, body: Buffer.from('{"SecretId":"a/b/D"}') })).toBe('bad signature');
    expect(await verify({ ...request, headers: { ...request.headers, 'x-amz-target': 'secretsmanager.DeleteSecret' } })).toBe(
      'bad signature',
    );
    const temporary = await signed('{}', { credentials: { ...KEY, sessionToken: 'st_session' } });
    const swapped = { ...temporary, headers: { ...temporary.headers, 'x-amz-security-token': 'st_other' } };
    expect(await verify(swapped, KEY.secretAccessKey, 'st_other')).toBe('bad signature');
  });

  it('refuses a signature that leaves out X-Amz-Target, or the Content-Type sent (IncompleteSignature): no replay as another operation', async () => {
    const untargeted = await signed('{"SecretId":"a/b/C"}', { unsigned: ['x-amz-target'] });
    expect(untargeted.headers.authorization).not.toContain('x-amz-target');
    expect(await verify(untargeted)).toEqual({
      type: 'IncompleteSignature',
      message: 'The x-amz-target header must be among the SignedHeaders.',
    });
    // Left unsigned, the target could be swapped and the signature would still hold: this is what the check stops.
    const replayed = { ...untargeted, headers: { ...untargeted.headers, 'x-amz-target': 'secretsmanager.DeleteSecret' } };
    expect(await verify(replayed)).toMatchObject({ type: 'IncompleteSignature' });
    expect(await verify(await signed('{}', { omit: ['x-amz-target'] }))).toMatchObject({ type: 'IncompleteSignature' });
    expect(await verify(await signed('{}', { unsigned: ['content-type'] }))).toEqual({
      type: 'IncompleteSignature',
      message: 'The content-type header must be among the SignedHeaders.',
    });
    // Content-Type need not be sent; when it is not, it need not be signed.
    expect(await verify(await signed('{}', { omit: ['content-type'] }))).toBe('ok');
  });

  it('asks no X-Amz-Target of an STS query request (its Action is in the signed body), but still its Content-Type', async () => {
    const sts = (body: string, options: { unsigned?: string[] } = {}) =>
      signed(body, { service: 'sts', omit: ['x-amz-target'], ...options });
    const body = 'Action=GetCallerIdentity&Version=2011-06-15';
    expect(await verify(await sts(body), KEY.secretAccessKey, undefined, 'sts')).toBe('ok');
    expect(await verify(await sts(body, { unsigned: ['content-type'] }), KEY.secretAccessKey, undefined, 'sts')).toEqual({
      type: 'IncompleteSignature',
      message: 'The content-type header must be among the SignedHeaders.',
    });
    // The action cannot be swapped: the body's hash is in the signature.
    const request = await sts(body);
    expect(
      await verify({ ...request, body: Buffer.from('Action=AssumeRole&Version=2011-06-15') }, KEY.secretAccessKey, undefined, 'sts'),
    ).not.toBe('ok');
    // A Secrets Manager signature is no STS signature, and the reverse.
    expect(await verify(await signed('{}'), KEY.secretAccessKey, undefined, 'sts')).toMatchObject({
      type: 'InvalidSignatureException',
      message: expect.stringMatching(/'sts'/),
    });
  });

  it('refuses a date 5 minutes and 1 second off either way, and accepts one 5 minutes off', async () => {
    expect(await verify(await signed('{}', { at: NOW - 300_000 }))).toBe('ok');
    expect(await verify(await signed('{}', { at: NOW + 300_000 }))).toBe('ok');
    for (const at of [NOW - 301_000, NOW + 301_000, NOW - 6 * 60_000]) {
      expect(await verify(await signed('{}', { at }))).toMatchObject({
        type: 'InvalidSignatureException',
        message: expect.stringMatching(/5 minutes/),
      });
    }
  });

  it('refuses another region or service', async () => {
    expect(await verify(await signed('{}', { region: 'eu-west-1' }))).toMatchObject({
      type: 'InvalidSignatureException',
      message: expect.stringMatching(/region/),
    });
    expect(await verify(await signed('{}', { service: 'sts' }))).toMatchObject({
      type: 'InvalidSignatureException',
      message: expect.stringMatching(/service/),
    });
  });

  it('refuses a payload hash that is not the body', async () => {
    const request = await signed('{}');
    const lying = { ...request, headers: { ...request.headers, 'x-amz-content-sha256': '0'.repeat(64) } };
    expect(await verify(lying)).toMatchObject({
      type: 'InvalidSignatureException',
      message: expect.stringMatching(/x-amz-content-sha256/),
    });
  });

  it('names a missing and a malformed Authorization header as AWS does', () => {
    expect(parseAuthorization(undefined)).toMatchObject({ type: 'MissingAuthenticationToken' });
    expect(parseAuthorization('Bearer st_abc')).toMatchObject({ type: 'IncompleteSignature' });
    expect(parseAuthorization('AWS4-HMAC-SHA256 Credential=AK/20261128/us-east-1/secretsmanager/aws4_request')).toMatchObject({
      type: 'IncompleteSignature',
    });
  });

  it('refuses a request whose host or date is not signed, and a session token sent but not signed', async () => {
    const request = await signed('{}');
    const auth = parseAuthorization(request.headers.authorization) as SigV4Authorization;
    const withoutHost = { ...auth, signedHeaders: auth.signedHeaders.filter((name) => name !== 'host') };
    expect(checkScope(request, withoutHost, { region: REGION, service: 'secretsmanager', now: NOW })).toMatchObject({
      message: 'The host header must be signed.',
    });
    const unsignedToken = { ...request, headers: { ...request.headers, 'x-amz-security-token': 'st_x' } };
    expect(checkScope(unsignedToken, auth, { region: REGION, service: 'secretsmanager', now: NOW })).toMatchObject({
      message: 'The x-amz-security-token header must be signed.',
    });
  });

  it('never puts the signature it computed in a message', async () => {
    const request = await signed('{"SecretId":"a/b/C"}');
    const answers = [await verify(request, 'b'.repeat(40)), await verify(await signed('{}', { region: 'eu-west-1' }))];
    const good = (parseAuthorization(request.headers.authorization) as SigV4Authorization).signature;
    expect(JSON.stringify(answers)).not.toContain(good);
  });
});
