import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { answerSts, createIdentity, NodeSha256, readIdentities, type LocalIamIdentity } from '../../../bin/local/sts.ts';
import { callerArnOf } from '../../../shared/access/iam-login.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

/** A GetCallerIdentity request signed by the AWS SDK's signer, as a workload's SDK signs it. */
async function signed(
  identity: Pick<LocalIamIdentity, 'accessKeyId' | 'secretAccessKey'>,
  options: { date?: number; region?: string; body?: string } = {},
) {
  const signer = new SignatureV4({ service: 'sts', region: options.region ?? 'us-east-1', credentials: identity, sha256: NodeSha256 });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4566,
      path: '/',
      headers: {
        host: '127.0.0.1:4566',
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'x-service-server-id': '127.0.0.1:3000',
      },
      body: options.body ?? BODY,
    },
    { signingDate: new Date(options.date ?? NOW) },
  );
  return { method: 'POST', path: '/', headers: request.headers as Record<string, string>, body: options.body ?? BODY };
}

describe('local STS stand-in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-sts-'));
  const role = createIdentity(dir, 'arn:aws:iam::123456789012:role/payments-api');
  const user = createIdentity(dir, 'arn:aws:iam::123456789012:user/ci');

  it('keeps identities with fresh credentials, and refuses an ARN that is not a role or user', () => {
    expect(readIdentities(dir).map((identity) => identity.arn)).toEqual([role.arn, user.arn]);
    expect(role.accessKeyId).not.toBe(user.accessKeyId);
    expect(() => createIdentity(dir, 'arn:aws:iam::123456789012:root')).toThrow(/--arn: must be an IAM role or user ARN/);
  });

  it('answers GetCallerIdentity for a request the SDK signed: a role as an assumed role, a user as itself', async () => {
    const asRole = await answerSts(await signed(role), readIdentities(dir), NOW);
    expect(asRole.status).toBe(200);
    expect(callerArnOf(asRole.body)).toBe('arn:aws:sts::123456789012:assumed-role/payments-api/local-session');
    const asUser = await answerSts(await signed(user), readIdentities(dir), NOW + 60_000);
    expect(callerArnOf(asUser.body)).toBe('arn:aws:iam::123456789012:user/ci');
  });

  it("refuses what STS refuses, with STS's error codes", async () => {
    const identities = readIdentities(dir);
    const code = async (request: Awaited<ReturnType<typeof signed>>, now = NOW) => {
      const answer = await answerSts(request, identities, now);
      return [answer.status, /<Code>([^<]+)<\/Code>/.exec(answer.body)?.[1]];
    };
    const good = await signed(role);
    expect(await code({ ...good, body: 'Action=AssumeRole&Version=2011-06-15' })).toEqual([403, 'SignatureDoesNotMatch']);
    expect(await code({ ...good, headers: { ...good.headers, 'x-service-server-id': 'elsewhere' } })).toEqual([
      403,
      'SignatureDoesNotMatch',
    ]);
    expect(
      await code({
        ...good,
        headers: { ...good.headers, authorization: good.headers.authorization!.replace(/.$/, (c) => (c === '0' ? '1' : '0')) },
      }),
    ).toEqual([403, 'SignatureDoesNotMatch']);
    expect(await code(await signed({ ...role, secretAccessKey: 'wrong' }))).toEqual([403, 'SignatureDoesNotMatch']);
    expect(await code(await signed({ accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x' }))).toEqual([403, 'InvalidClientTokenId']);
    expect(await code(await signed(role, { region: 'eu-west-1' }))).toEqual([403, 'SignatureDoesNotMatch']);
    expect(await code(good, NOW + 16 * 60_000)).toEqual([403, 'SignatureDoesNotMatch']);
    // STS's 15 minutes, not the AWS API adapter's 5: the verifier is the adapter's, its skew the stand-in's.
    expect(await code(good, NOW - 14 * 60_000)).toEqual([200, undefined]);
    expect(await code({ ...good, headers: { ...good.headers, authorization: 'AWS4-HMAC-SHA256 Credential=x' } })).toEqual([
      403,
      'IncompleteSignature',
    ]);
    expect(await code({ ...good, headers: { ...good.headers, authorization: '' } })).toEqual([403, 'MissingAuthenticationToken']);
    expect(await code(await signed(role, { body: 'Action=GetSessionToken&Version=2011-06-15' }))).toEqual([400, 'InvalidAction']);
    expect(await code(good)).toEqual([200, undefined]);
  });
});
