import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, inject, it } from 'vitest';
import { NodeSha256 } from '../../../bin/local/sts.ts';
import { callerArnOf, GET_CALLER_IDENTITY_BODY } from '../../../shared/access/iam-login.ts';
import { admin } from '../../support/api.ts';

/** The local stack's STS stand-in, as a workload reaches it: credentials from the admin CLI, a request signed by the AWS SDK's signer. */
describe('local STS stand-in', () => {
  const post = async (credentials: { accessKeyId: string; secretAccessKey: string }) => {
    const stack = inject('stack');
    const url = new URL(stack.awsStsEndpoint);
    const signer = new SignatureV4({ service: 'sts', region: 'us-east-1', credentials, sha256: NodeSha256 });
    const request = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: '/',
      headers: {
        host: url.host,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'x-service-server-id': stack.iamServerId,
      },
      body: GET_CALLER_IDENTITY_BODY,
    });
    const response = await fetch(stack.awsStsEndpoint, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: GET_CALLER_IDENTITY_BODY,
    });
    return { status: response.status, body: await response.text() };
  };

  it('answers a role made with the admin CLI as an assumed role, and refuses a wrong secret', async () => {
    const identity = await admin('iam-identity', 'create', '--arn', 'arn:aws:iam::123456789012:role/payments-api');
    expect(identity).toMatchObject({ arn: 'arn:aws:iam::123456789012:role/payments-api', accessKeyId: expect.stringMatching(/^AKIA/) });
    const answer = await post(identity);
    expect(answer.status).toBe(200);
    expect(callerArnOf(answer.body)).toBe('arn:aws:sts::123456789012:assumed-role/payments-api/local-session');
    const refused = await post({ ...identity, secretAccessKey: 'not-the-secret' });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('names its endpoint and the server id (the host and port of baseUrl) in stack.json', () => {
    const stack = inject('stack');
    expect(stack.iamServerId).toBe(new URL(stack.baseUrl).host);
    expect(stack.awsStsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
