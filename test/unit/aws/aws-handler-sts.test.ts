import { SignatureV4 } from '@smithy/signature-v4';
import * as z from 'zod/mini';
import { describe, expect, it, vi } from 'vitest';
import { SignatureMismatchError, UnrecognizedKeyError } from '../../../shared/access/index.ts';
import { defineOperation, makeAwsHandler, protocolOf } from '../../../shared/aws/aws-handler.ts';
import { parseAuthorization } from '../../../shared/aws/sigv4.ts';
import { NodeSha256 } from '../../../sdk/src/node-sha256.ts';
import { lambdaContext } from '../../support/api-event.ts';

const NOW = Date.parse('2026-11-28T06:00:00Z');
const KEY = { accessKeyId: 'AKSMABCDEFGHIJKLMNOP', secretAccessKey: 's'.repeat(40) };
const ACCOUNT = '123456789012';
const principal = {
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  kind: 'machine',
  actorSub: 'mid_1',
  credentialId: 'ak_0123456789abcdef',
} as never;
const FORM = 'application/x-www-form-urlencoded; charset=utf-8';
const CALLER_IDENTITY = 'Action=GetCallerIdentity&Version=2011-06-15';

interface Options {
  service?: string;
  contentType?: string;
  target?: string;
  unsigned?: string[];
  sign?: boolean;
  secretAccessKey?: string;
}

/** An API Gateway event of a request signed as the AWS SDK's STS client signs it (form body, no X-Amz-Target). */
async function event(body: string, options: Options = {}) {
  const headers: Record<string, string> = {
    host: 'api.test',
    'content-type': options.contentType ?? FORM,
    ...(options.target && { 'x-amz-target': options.target }),
  };
  const signer = new SignatureV4({
    service: options.service ?? 'sts',
    region: 'us-east-1',
    credentials: { ...KEY, secretAccessKey: options.secretAccessKey ?? KEY.secretAccessKey },
    sha256: NodeSha256,
  });
  const signed =
    options.sign === false
      ? { headers }
      : await signer.sign(
          { method: 'POST', protocol: 'https:', hostname: 'api.test', path: '/', headers, body },
          { signingDate: new Date(NOW), ...(options.unsigned && { unsignableHeaders: new Set(options.unsigned) }) },
        );
  return {
    version: '2.0',
    routeKey: 'POST /',
    rawPath: '/',
    rawQueryString: '',
    headers: Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), String(value)])),
    requestContext: { http: { method: 'POST', path: '/', sourceIp: '127.0.0.1' } },
    isBase64Encoded: true,
    body: Buffer.from(body).toString('base64'),
  } as never;
}

/** The handler over an authenticator that checks the signature with KEY's secret, or throws what it is given. */
function handler(refuse?: Error) {
  const ran: string[] = [];
  const authenticate = vi.fn(async (signed: { signedWith(secret: string): Promise<boolean> }) => {
    if (refuse) throw refuse;
    if (!(await signed.signedWith(KEY.secretAccessKey)))
      throw new SignatureMismatchError('The request signature we calculated does not match.');
    return { principal, prefetched: new Map() };
  });
  const operations = {
    Echo: defineOperation({
      input: z.object({}),
      handle: async () => {
        ran.push('Echo');
        return {};
      },
    }),
  };
  const handle = makeAwsHandler({ authenticate: authenticate as never, operations, region: 'us-east-1', account: ACCOUNT, now: () => NOW });
  return { handle, ran, authenticate };
}

const xmlOf = (result: { statusCode?: number; headers?: Record<string, unknown>; body?: string }) => ({
  status: result.statusCode,
  contentType: result.headers?.['content-type'],
  code: /<Code>([^<]*)<\/Code>/.exec(result.body ?? '')?.[1],
  body: result.body ?? '',
});

describe('STS GetCallerIdentity at the AWS API endpoint', () => {
  it('answers the caller identity for an sts-signed form request that carries no X-Amz-Target', async () => {
    const { handle, authenticate } = handler();
    const answer = xmlOf(await handle(await event(CALLER_IDENTITY), lambdaContext()));
    expect([answer.status, answer.contentType]).toEqual([200, 'text/xml']);
    expect(answer.body).toContain(`<Arn>arn:aws:iam::${ACCOUNT}:user/secrets-service/ak_0123456789abcdef</Arn>`);
    expect(answer.body).toContain('<UserId>ak_0123456789abcdef</UserId>');
    expect(answer.body).toContain(`<Account>${ACCOUNT}</Account>`);
    expect(authenticate).toHaveBeenCalledOnce();
  });

  it('tells the protocols apart by X-Amz-Target, then by a form body or an sts scope', () => {
    const sts = parseAuthorization(
      `AWS4-HMAC-SHA256 Credential=${KEY.accessKeyId}/20261128/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
    );
    const sm = parseAuthorization(undefined);
    expect(protocolOf({ 'x-amz-target': 'secretsmanager.GetSecretValue', 'content-type': FORM }, sts)).toBe('secretsmanager');
    expect(protocolOf({}, sts)).toBe('sts');
    expect(protocolOf({ 'content-type': FORM }, sm)).toBe('sts');
    expect(protocolOf({ 'content-type': 'application/x-amz-json-1.1' }, sm)).toBe('secretsmanager');
  });

  it('refuses an sts-scoped signature on a Secrets Manager target (InvalidSignatureException) and runs nothing', async () => {
    const { handle, ran, authenticate } = handler();
    const result = await handle(
      await event('{}', { target: 'secretsmanager.Echo', contentType: 'application/x-amz-json-1.1', service: 'sts' }),
      lambdaContext(),
    );
    expect([result.statusCode, result.headers?.['x-amzn-errortype']]).toEqual([400, 'InvalidSignatureException']);
    expect(JSON.parse(result.body!).message).toMatch(/service: 'secretsmanager'/);
    expect([ran, authenticate.mock.calls.length]).toEqual([[], 0]);
  });

  it('refuses a secretsmanager-scoped signature on an STS request, in STS form (SignatureDoesNotMatch)', async () => {
    const { handle, authenticate } = handler();
    const answer = xmlOf(await handle(await event(CALLER_IDENTITY, { service: 'secretsmanager' }), lambdaContext()));
    expect([answer.status, answer.contentType, answer.code]).toEqual([403, 'text/xml', 'SignatureDoesNotMatch']);
    expect(answer.body).toMatch(/service: &apos;sts&apos;/);
    expect(authenticate).not.toHaveBeenCalled();
  });

  it('refuses an STS request whose Content-Type is sent but not signed (IncompleteSignature)', async () => {
    const { handle, authenticate } = handler();
    const answer = xmlOf(await handle(await event(CALLER_IDENTITY, { unsigned: ['content-type'] }), lambdaContext()));
    expect([answer.status, answer.code]).toEqual([400, 'IncompleteSignature']);
    expect(answer.body).toContain('content-type');
    expect(authenticate).not.toHaveBeenCalled();
  });

  it("answers authentication failures in STS's XML form with STS's codes", async () => {
    const wrongSecret = xmlOf(await handler().handle(await event(CALLER_IDENTITY, { secretAccessKey: 'w'.repeat(40) }), lambdaContext()));
    expect([wrongSecret.status, wrongSecret.code]).toEqual([403, 'SignatureDoesNotMatch']);
    const tampered = {
      ...((await event(CALLER_IDENTITY)) as object),
      body: Buffer.from('Action=AssumeRole&Version=2011-06-15').toString('base64'),
    };
    const changed = xmlOf(await handler().handle(tampered as never, lambdaContext()));
    expect([changed.status, changed.code]).toEqual([403, 'SignatureDoesNotMatch']);
    const unknown = xmlOf(
      await handler(new UnrecognizedKeyError('The security token included in the request is invalid.')).handle(
        await event(CALLER_IDENTITY),
        lambdaContext(),
      ),
    );
    expect([unknown.status, unknown.code]).toEqual([403, 'InvalidClientTokenId']);
    const unsigned = xmlOf(await handler().handle(await event(CALLER_IDENTITY, { sign: false }), lambdaContext()));
    expect([unsigned.status, unsigned.code]).toEqual([403, 'MissingAuthenticationToken']);
  });

  it('answers another STS action InvalidAction (400) once the caller is authenticated', async () => {
    const { handle, authenticate } = handler();
    const answer = xmlOf(
      await handle(await event('Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fx'), lambdaContext()),
    );
    expect([answer.status, answer.code]).toEqual([400, 'InvalidAction']);
    expect(answer.body).toContain('<Type>Sender</Type>');
    expect(answer.body).toMatch(/<ErrorResponse xmlns="https:\/\/sts.amazonaws.com\/doc\/2011-06-15\/">/);
    expect(authenticate).toHaveBeenCalledOnce();
  });
});
