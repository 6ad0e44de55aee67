import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashToken } from '../../../shared/access/tokens.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { iamLogin, signedRequest, stsIdentity, type StsIdentity } from '../../support/login.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * Workload identity with AWS IAM (decisions.md, "Workload identity"), end to end on the local stack: requests signed
 * by the AWS SDK's signer, replayed by the service to the local STS stand-in, which checks the signature as STS does.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let env: { project: { id: string; slug: string }; environment: { id: string; slug: string } };
let payments: StsIdentity;
let other: StsIdentity;

const ROLE = 'arn:aws:iam::123456789012:role/payments-api';

const createKey = async (body: Record<string, unknown> = {}) => {
  const answer = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: { name: 'payments', auth: { type: 'aws_iam', principalArns: ['arn:aws:iam::123456789012:role/payments-*'] }, ...body },
  });
  expect(answer.status).toBe(201);
  return answer.body.data;
};

const auditOf = async (target: string, action: string) =>
  (await call('GET', `/api/v1/audit?target=${target}&action=${action}&limit=50`, { token: ws.apiKey })).body.data as {
    action: string;
    actorSub: string;
    metadata: Record<string, unknown>;
  }[];

beforeAll(async () => {
  ws = await newWorkspace();
  env = await newEnvironment(ws.apiKey, { project: 'payments', environment: 'prod' });
  const put = await call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, {
    token: ws.apiKey,
    body: { key: 'DB_PASSWORD', value: 'hunter2' },
  });
  expect(put.status).toBeLessThan(300);
  payments = await stsIdentity(ROLE);
  other = await stsIdentity('arn:aws:iam::123456789012:role/billing-api');
});

describe('AWS IAM login', () => {
  it("trades a signed GetCallerIdentity for a short-lived token with the key's permissions, audited with the role", async () => {
    const key = await createKey({
      tokenTtlSeconds: 600,
      permissions: [{ projects: ['payments'], environments: ['prod'], keys: ['DB_*'], actions: ['reveal'] }],
    });
    expect(key).toMatchObject({
      token: null,
      tokenPrefix: null,
      tokenTtlSeconds: 600,
      auth: { type: 'aws_iam', principalArns: ['arn:aws:iam::123456789012:role/payments-*'] },
    });
    const before = Date.now();
    const login = await iamLogin(key.id, await signedRequest(payments));
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ accessKeyId: key.id, identityId: key.identityId, token: expect.stringMatching(/^st_/) });
    const expiresAt = Date.parse(login.body.data.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    const token = login.body.data.token as string;
    const reveal = await call('POST', '/api/v1/reveal', { token, body: { path: `payments/prod/DB_PASSWORD` } });
    expect(reveal.status).toBe(200);
    expect(reveal.body.data.value).toBe('hunter2');
    // The key's rules travel with the login's token: a project it may not see does not exist for it.
    expect((await call('GET', `/api/v1/projects/${newId('project')}/environments`, { token })).status).toBe(404);
    const [entry] = await auditOf(key.id, 'access_key.login');
    expect(entry).toMatchObject({ actorSub: key.identityId, metadata: { accessKeyId: key.id, method: 'aws_iam', principal: ROLE } });
    expect(JSON.stringify(await auditOf(key.id, 'access_key.login'))).not.toContain(token.slice(3, 20));
  });

  it('refuses a role outside principalArns, a wrong, unsigned or missing server id, another endpoint and a bad signature: 401, audited', async () => {
    const key = await createKey();
    const stack = await signedRequest(payments);
    const refusals: [string, Awaited<ReturnType<typeof signedRequest>>, RegExp][] = [
      ['principal', await signedRequest(other), /matches none of the access key's principalArns/],
      ['server_id', await signedRequest(payments, { serverId: 'other.example.com' }), /x-service-server-id is not this service's id/],
      ['server_id', await signedRequest(payments, { unsigned: ['x-service-server-id'] }), /x-service-server-id must be signed/],
      ['endpoint', { ...stack, url: 'https://sts.amazonaws.com/' }, /must be the configured STS endpoint/],
      ['action', await signedRequest(payments, { body: 'Action=GetCallerIdentity&Version=2011-06-15&Extra=1' }), /must be exactly/],
      [
        'header',
        await signedRequest(payments, { extraHeaders: { 'x-forwarded-host': 'evil.example.com' } }),
        /x-forwarded-host is not allowed/,
      ],
      ['date', await signedRequest(payments, { date: new Date(Date.now() - 6 * 60_000) }), /more than 5 minutes/],
      [
        'sts_refused',
        await signedRequest({ ...payments, secretAccessKey: 'wrong' }),
        /STS refused the signed request \(SignatureDoesNotMatch\)/,
      ],
    ];
    for (const [reason, request, message] of refusals) {
      const answer = await iamLogin(key.id, request);
      expect({ reason, status: answer.status, code: answer.body.error?.code }).toEqual({ reason, status: 401, code: 'AUTH_REQUIRED' });
      expect(answer.body.error.message).toMatch(message);
      expect(answer.body.error.message).not.toMatch(/Signature=|[0-9a-f]{64}/);
    }
    const denied = await auditOf(key.id, 'access_key.login_denied');
    expect(denied.map((entry) => entry.metadata.reason).sort()).toEqual(refusals.map(([reason]) => reason).sort());
    expect(denied.every((entry) => entry.actorSub === key.identityId && entry.metadata.method === 'aws_iam')).toBe(true);
  });

  it('refuses an unknown key without writing anything, a token key and the wrong method', async () => {
    const unknown = await iamLogin(newId('accessKey'), await signedRequest(payments));
    expect(unknown.status).toBe(401);
    const tokenKey = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'plain' } })).body.data;
    const plain = await iamLogin(tokenKey.id, await signedRequest(payments));
    expect(plain.status).toBe(401);
    expect(plain.body.error.message).toMatch(/does not log in/);
    const key = await createKey();
    const oidc = await call('POST', '/api/v1/auth/login', { body: { accessKeyId: key.id, method: 'oidc', jwt: 'a.b.c' } });
    expect(oidc.status).toBe(401);
    expect(oidc.body.error.message).toMatch(/logs in with aws_iam, not oidc/);
    const malformed = await call('POST', '/api/v1/auth/login', { body: { accessKeyId: key.id, method: 'password', password: 'x' } });
    expect(malformed.status).toBe(400);
  });

  it('revoking the key and PATCHing it reach a live login token on its next request', async () => {
    const key = await createKey({ permissions: [{ actions: ['reveal'] }] });
    const first = (await iamLogin(key.id, await signedRequest(payments))).body.data.token as string;
    const second = (await iamLogin(key.id, await signedRequest(payments))).body.data.token as string;
    const path = { path: 'payments/prod/DB_PASSWORD' };
    expect((await call('POST', '/api/v1/reveal', { token: first, body: path })).status).toBe(200);
    const narrowed = await call('PATCH', `/api/v1/access-keys/${key.id}`, {
      token: ws.apiKey,
      body: { permissions: [{ keys: ['OTHER_*'], actions: ['reveal'] }] },
    });
    expect(narrowed.status).toBe(200);
    expect((await call('POST', '/api/v1/reveal', { token: first, body: path })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token: second, body: path })).status).toBe(404);
    expect((await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })).status).toBe(200);
    const revoked = await call('GET', '/api/v1/projects', { token: second });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/revoked/);
    const again = await iamLogin(key.id, await signedRequest(payments));
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/revoked/);
  });

  it("refuses a live token a change has not reached yet: the key's state on the workspace item decides", async () => {
    const key = await createKey({ permissions: [{ actions: ['reveal'] }] });
    const changed = (await iamLogin(key.id, await signedRequest(payments))).body.data.token as string;
    const { doc, tableName } = localStore();
    const unreach = (token: string, update: string, values?: Record<string, unknown>) =>
      doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.token(hashToken(token)),
          UpdateExpression: update,
          ...(values && { ExpressionAttributeValues: values }),
        }),
      );
    expect(
      (
        await call('PATCH', `/api/v1/access-keys/${key.id}`, {
          token: ws.apiKey,
          body: { permissions: [{ keys: ['OTHER_*'], actions: ['reveal'] }] },
        })
      ).status,
    ).toBe(200);
    // The token item as it was before the change reached it (a function that stopped half-way, a huge fleet).
    await unreach(changed, 'SET keyRevision = :zero', { ':zero': 0 });
    const stale = await call('GET', '/api/v1/projects', { token: changed });
    expect(stale.status).toBe(401);
    expect(stale.body.error.message).toMatch(/changed after this token was issued; log in again/);
    // A new login has the key as it is now.
    const fresh = (await iamLogin(key.id, await signedRequest(payments))).body.data.token as string;
    expect((await call('POST', '/api/v1/reveal', { token: fresh, body: { path: 'payments/prod/DB_PASSWORD' } })).status).toBe(404);
    expect((await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })).status).toBe(200);
    await unreach(fresh, 'REMOVE revokedAt');
    const revoked = await call('GET', '/api/v1/projects', { token: fresh });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/revoked/);
  });

  it('a token never outlives its key, and allowedCidrs apply to the login', async () => {
    const short = await createKey({ expiresInDays: 1, tokenTtlSeconds: 43_200 });
    const login = await iamLogin(short.id, await signedRequest(payments));
    expect(Date.parse(login.body.data.expiresAt)).toBeLessThanOrEqual(Date.parse(short.expiresAt));
    const fenced = await createKey({ allowedCidrs: ['203.0.113.0/24'] });
    const outside = await iamLogin(fenced.id, await signedRequest(payments));
    expect(outside.status).toBe(403);
    expect((await auditOf(fenced.id, 'access_key.login_denied'))[0]?.metadata.reason).toBe('source_address');
  });
});

describe('access keys with auth: validation', () => {
  it('takes tokenTtlSeconds 60 and 43200 and refuses 59 and 43201, and tokenTtlSeconds on a token key', async () => {
    const auth = { type: 'aws_iam', principalArns: [ROLE] };
    const create = (body: Record<string, unknown>) =>
      call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'ttl', ...body } });
    expect((await create({ auth, tokenTtlSeconds: 60 })).status).toBe(201);
    expect((await create({ auth, tokenTtlSeconds: 43_200 })).status).toBe(201);
    expect((await create({ auth })).body.data.tokenTtlSeconds).toBe(900);
    for (const ttl of [59, 43_201]) {
      const answer = await create({ auth, tokenTtlSeconds: ttl });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/^tokenTtlSeconds: /);
    }
    const plain = await create({ tokenTtlSeconds: 600 });
    expect(plain.status).toBe(400);
    expect(plain.body.error.message).toMatch(/^tokenTtlSeconds: only a key with auth aws_iam or oidc/);
    expect((await create({})).body.data).toMatchObject({
      auth: { type: 'token' },
      tokenTtlSeconds: null,
      token: expect.stringMatching(/^st_/),
    });
  });

  it('takes 1 to 20 principalArns with a 12-digit account, and refuses a globbed account', async () => {
    const create = (principalArns: unknown) =>
      call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'arns', auth: { type: 'aws_iam', principalArns } } });
    expect((await create(Array.from({ length: 20 }, (_, i) => `arn:aws:iam::123456789012:role/r${i}`))).status).toBe(201);
    for (const bad of [
      [],
      Array.from({ length: 21 }, (_, i) => `arn:aws:iam::123456789012:role/r${i}`),
      ['arn:aws:iam::*:role/deploy'],
      ['arn:aws:s3:::bucket'],
      ['arn:aws:iam::123456789012:role/service-role/deploy'],
    ]) {
      const answer = await create(bad);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/^auth\.principalArns/);
    }
  });
});
