import { SignatureV4 } from '@smithy/signature-v4';
import * as z from 'zod/mini';
import { describe, expect, it, vi } from 'vitest';
import { makeAwsHandler, defineOperation } from '../../../shared/aws/aws-handler.ts';
import { NotFoundError } from '../../../shared/platform/errors.ts';
import { requestInterface } from '../../../shared/platform/request-interface.ts';
import { NodeSha256 } from '../../../sdk/src/node-sha256.ts';
import { lambdaContext } from '../../support/api-event.ts';

const NOW = Date.parse('2026-11-28T06:00:00Z');
const KEY = { accessKeyId: 'AKSMABCDEFGHIJKLMNOP', secretAccessKey: 's'.repeat(40) };
const principal = { workspaceId: 'ws_1', accountId: 'acc_1', kind: 'machine', actorSub: 'mid_1', credentialId: 'ak_1' } as never;

/** An API Gateway event of a request the AWS SDK's signer signed, its body base64 as API Gateway hands it over. */
async function event(target: string | undefined, body: string, options: { sign?: boolean; unsigned?: string[] } = {}) {
  const headers: Record<string, string> = {
    host: 'api.test',
    'content-type': 'application/x-amz-json-1.1',
    ...(target && { 'x-amz-target': target }),
  };
  const signed =
    options.sign === false
      ? { headers }
      : await new SignatureV4({ service: 'secretsmanager', region: 'us-east-1', credentials: KEY, sha256: NodeSha256 }).sign(
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

function handler() {
  const seen: unknown[] = [];
  const authenticate = vi.fn(async (signed: { signedWith(secret: string): Promise<boolean> }) => {
    if (!(await signed.signedWith(KEY.secretAccessKey))) throw new Error('signature');
    return { principal, prefetched: new Map() };
  });
  const operations = {
    Echo: defineOperation({
      input: z.object({ SecretId: z.string().check(z.maxLength(8)) }),
      handle: async (_principal, input) => {
        seen.push(requestInterface());
        if (input.SecretId === 'missing') throw new NotFoundError('no such secret');
        return { SecretId: input.SecretId };
      },
    }),
    Boom: defineOperation({ input: z.object({}), handle: async () => Promise.reject(new Error('internal detail s3cr3t')) }),
  };
  return {
    seen,
    handle: makeAwsHandler({
      authenticate: authenticate as never,
      operations,
      region: 'us-east-1',
      account: '000000000000',
      now: () => NOW,
    }),
  };
}

const parse = (result: { statusCode?: number; headers?: Record<string, unknown>; body?: string }) => ({
  status: result.statusCode,
  type: result.headers?.['x-amzn-errortype'],
  body: JSON.parse(result.body!),
  requestId: result.headers?.['x-amzn-requestid'],
  contentType: result.headers?.['content-type'],
});

describe('the AWS API handler', () => {
  it('decodes the base64 body, checks the signature over its bytes, runs the operation through the aws interface', async () => {
    const { handle, seen } = handler();
    const answer = parse(await handle(await event('secretsmanager.Echo', '{"SecretId":"a/b/C"}'), lambdaContext()));
    expect(answer).toMatchObject({ status: 200, body: { SecretId: 'a/b/C' }, contentType: 'application/x-amz-json-1.1' });
    expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen).toEqual(['aws']);
  });

  it('answers AWS error types: unknown and unsupported operations, bad JSON, a field past its limit, a service error', async () => {
    const { handle } = handler();
    const cases = [
      ['secretsmanager.Nope', '{}', 'UnknownOperationException'],
      // Without X-Amz-Target the signature cannot cover the operation (decisions.md, "Hardening v1.4").
      [undefined, '{}', 'IncompleteSignature'],
      ['secretsmanager.ReplicateSecretToRegions', '{}', 'InvalidRequestException'],
      ['secretsmanager.Echo', '{not json', 'SerializationException'],
      ['secretsmanager.Echo', '[]', 'SerializationException'],
      ['secretsmanager.Echo', '{"SecretId":"123456789"}', 'InvalidParameterException'],
      ['secretsmanager.Echo', '{"SecretId":"missing"}', 'ResourceNotFoundException'],
    ] as const;
    for (const [target, body, type] of cases) {
      const answer = parse(await handle(await event(target, body), lambdaContext()));
      expect({ target, body, status: answer.status, type: answer.type, __type: answer.body.__type }).toEqual({
        target,
        body,
        status: 400,
        type,
        __type: type,
      });
    }
    const tooLong = parse(await handle(await event('secretsmanager.Echo', '{"SecretId":"123456789"}'), lambdaContext()));
    expect(tooLong.body.message).toMatch(/^SecretId: /);
  });

  it('refuses a signature without X-Amz-Target among its SignedHeaders (400 IncompleteSignature) before the key is read', async () => {
    const { handle, seen } = handler();
    const answer = parse(await handle(await event('secretsmanager.Echo', '{}', { unsigned: ['x-amz-target'] }), lambdaContext()));
    expect([answer.status, answer.type, answer.body.__type]).toEqual([400, 'IncompleteSignature', 'IncompleteSignature']);
    expect(answer.body.message).toMatch(/x-amz-target/);
    expect(seen).toEqual([]);
  });

  it('refuses a request without a signature (403 MissingAuthenticationToken) before reading its operation', async () => {
    const { handle } = handler();
    const answer = parse(await handle(await event('secretsmanager.Echo', '{}', { sign: false }), lambdaContext()));
    expect([answer.status, answer.type]).toEqual([403, 'MissingAuthenticationToken']);
  });

  it('hides an unexpected error behind InternalServiceError (500)', async () => {
    const { handle } = handler();
    const answer = parse(await handle(await event('secretsmanager.Boom', '{}'), lambdaContext()));
    expect(answer).toMatchObject({ status: 500, type: 'InternalServiceError', body: { message: 'An error occurred on the server side.' } });
    expect(JSON.stringify(answer)).not.toContain('s3cr3t');
  });

  it('refuses a body changed after signing (its hash is signed): InvalidSignatureException', async () => {
    const { handle } = handler();
    const signed = await event('secretsmanager.Echo', '{}');
    const tampered = { ...(signed as object), body: Buffer.from('{"SecretId":"x"}').toString('base64') } as never;
    const answer = parse(await handle(tampered, lambdaContext()));
    expect([answer.status, answer.type]).toEqual([400, 'InvalidSignatureException']);
  });
});
