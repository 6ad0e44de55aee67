import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { SignatureV4 } from '@smithy/signature-v4';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { NodeSha256 } from '../../../sdk/src/node-sha256.ts';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';

/**
 * SigV4 (decisions.md, "Hardening v1.4"): `X-Amz-Target`, and `Content-Type` when sent, must be among the signed
 * headers, or a request captured within its 5 minutes could be sent again as another operation. Requests signed by
 * the AWS SDK's own signer with a header left out, as a client that signs less than the SDKs would.
 */
describe('the AWS API refuses a signature that leaves out the operation', () => {
  let key: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    const ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'replay-app', environment: 'prod' })).environment.id;
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'API_KEY', value: 'kept' } });
    key = await awsKey(ws);
  });

  /** POST / signed for `target`, with `unsigned` headers sent but left out of SignedHeaders; `sent` replaces the target sent. */
  async function send(target: string, body: string, options: { unsigned?: string[]; sent?: string } = {}) {
    const url = new URL(inject('stack').baseUrl);
    const signer = new SignatureV4({ service: 'secretsmanager', region: 'us-east-1', credentials: key, sha256: NodeSha256 });
    const signed = await signer.sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port) || undefined,
        path: '/',
        headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
        body,
      },
      options.unsigned ? { unsignableHeaders: new Set(options.unsigned) } : {},
    );
    const { host: _host, ...headers } = signed.headers as Record<string, string>;
    const answer = await fetch(`${url.origin}/`, {
      method: 'POST',
      headers: { ...headers, ...(options.sent && { 'x-amz-target': options.sent }) },
      body,
    });
    return { status: answer.status, type: answer.headers.get('x-amzn-errortype'), body: (await answer.json()) as Record<string, string> };
  }

  it('answers 400 IncompleteSignature when X-Amz-Target is not signed, so a captured read cannot be replayed as a delete', async () => {
    const get = '{"SecretId":"replay-app/prod/API_KEY"}';
    expect(await send('secretsmanager.GetSecretValue', get)).toMatchObject({ status: 200, body: { SecretString: 'kept' } });
    const unsigned = await send('secretsmanager.GetSecretValue', get, { unsigned: ['x-amz-target'] });
    expect([unsigned.status, unsigned.type, unsigned.body.__type]).toEqual([400, 'IncompleteSignature', 'IncompleteSignature']);
    expect(unsigned.body.message).toContain('x-amz-target');
    const replayed = await send(
      'secretsmanager.GetSecretValue',
      '{"SecretId":"replay-app/prod/API_KEY","ForceDeleteWithoutRecovery":true}',
      {
        unsigned: ['x-amz-target'],
        sent: 'secretsmanager.DeleteSecret',
      },
    );
    expect([replayed.status, replayed.type]).toEqual([400, 'IncompleteSignature']);
    expect((await client(key).send(new GetSecretValueCommand({ SecretId: 'replay-app/prod/API_KEY' }))).SecretString).toBe('kept');
  });

  it('answers 400 IncompleteSignature when the Content-Type sent is not signed', async () => {
    const unsigned = await send('secretsmanager.GetSecretValue', '{"SecretId":"replay-app/prod/API_KEY"}', { unsigned: ['content-type'] });
    expect([unsigned.status, unsigned.type]).toEqual([400, 'IncompleteSignature']);
    expect(unsigned.body.message).toContain('content-type');
  });
});
