import { beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/platform/principal.ts';
import { makeAccessKeyService } from '../../../shared/access/access-key-service.ts';
import { call, localStore, newWorkspace, stackMacs, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('access keys', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'cli', environment: 'prod' })).environment.id;
  });

  it('creates an identity and token, the token works on secrets routes, and revoke ends it on the next request', async () => {
    const created = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'deploy bot', expiresInDays: 30 } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    expect(key).toMatchObject({
      id: expect.stringMatching(/^ak_/),
      name: 'deploy bot',
      identityId: expect.stringMatching(/^mid_/),
      createdBy: ws.apiKeyId,
      revokedAt: null,
      lastUsedAt: null,
      status: 'active',
      token: expect.stringMatching(/^st_[A-Za-z0-9_-]{43}[A-Za-z0-9_-]{8}[0-9A-HJKMNP-TV-Z]{26}$/),
    });
    expect(key.tokenPrefix).toBe(key.token.slice(0, 10));
    expect(Date.parse(key.expiresAt) - Date.parse(key.createdAt)).toBe(30 * 86_400_000);

    const token = key.token as string;
    const id = (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token, body: { key: 'DEPLOY', value: 'from-bot' } })).body.data
      .id;
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token })).body.data.value).toBe('from-bot');
    expect((await call('POST', '/api/v1/reveal', { token, body: { path: 'cli/prod/DEPLOY' } })).body.data.value).toBe('from-bot');
    const reveal = (await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { target: id, action: 'secret.reveal' })).items[0];
    expect(reveal).toMatchObject({ actorSub: key.identityId, metadata: { credentialKind: 'machine' } });

    const list = await call('GET', '/api/v1/access-keys', { token: ws.apiKey });
    const listed = list.body.data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ id: key.id, status: 'active', tokenPrefix: key.tokenPrefix, lastUsedAt: expect.any(String) });
    expect(JSON.stringify(list.body)).not.toContain(token);
    expect(JSON.stringify(list.body)).not.toMatch(/tokenHash|"token":/);

    const revoked = await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: key.id, status: 'revoked', revokedAt: expect.any(String) });
    expect(revoked.body.data.token).toBeUndefined();
    const refused = await call('POST', `/api/v1/secrets/${id}/reveal`, { token });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AUTH_REQUIRED');
    const again = await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey });
    expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: key.id });
    expect(audit.items.map((e) => e.action)).toEqual(['access_key.revoke', 'access_key.create']);
  });

  it('records lastUsedAt at most once a minute', async () => {
    const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'busy' } })).body.data;
    expect(key.expiresAt).toBeNull();
    for (let i = 0; i < 5; i++) await call('GET', '/api/v1/projects', { token: key.token });
    const first = (await localStore().store.getAccessKey(ws.workspaceId, key.id))!.lastUsedAt;
    expect(first).not.toBeNull();
    await call('GET', '/api/v1/projects', { token: key.token });
    expect((await localStore().store.getAccessKey(ws.workspaceId, key.id))!.lastUsedAt).toBe(first);
  });

  it('expires: with a clock two days back, a one-day key is expired now, AUTH_REQUIRED and listed as expired', async () => {
    const { store } = localStore();
    const workspace = await store.getWorkspace(ws.workspaceId);
    const principal: Principal = {
      workspaceId: ws.workspaceId,
      accountId: workspace!.accountId,
      kind: 'api_key',
      actorSub: ws.apiKeyId,
      credentialId: ws.apiKeyId,
      authority: API_KEY_AUTHORITY,
    };
    const past = makeAccessKeyService({ store, clock: { now: () => Date.now() - 2 * 86_400_000 }, macs: stackMacs });
    const key = await past.create(principal, { name: 'old', expiresInDays: 1 });
    expect(key.status).toBe('active');
    const answer = await call('GET', '/api/v1/projects', { token: key.token! });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Authorization: the token has expired' });
    const listed = (await call('GET', '/api/v1/access-keys?limit=200', { token: ws.apiKey })).body.data.find(
      (k: { id: string }) => k.id === key.id,
    );
    expect(listed.status).toBe('expired');
  });

  it('validates name 0/1/120/121 and expiresInDays 0/1/3650/3651', async () => {
    const create = (body: unknown) => call('POST', '/api/v1/access-keys', { token: ws.apiKey, body });
    expect((await create({ name: 'n' })).status).toBe(201);
    expect((await create({ name: 'n'.repeat(120) })).status).toBe(201);
    expect((await create({ name: '' })).body.error.message).toBe('name: must be at least 1 character');
    expect((await create({ name: 'n'.repeat(121) })).body.error.message).toBe('name: must be at most 120 characters');
    expect((await create({ name: 'x', expiresInDays: 1 })).status).toBe(201);
    expect((await create({ name: 'x', expiresInDays: 3650 })).status).toBe(201);
    expect((await create({ name: 'x', expiresInDays: 0 })).body.error.message).toBe('expiresInDays: must be at least 1');
    expect((await create({ name: 'x', expiresInDays: 3651 })).body.error.message).toBe('expiresInDays: must be at most 3650');
    expect((await create({ name: 'x', expiresInDays: 1.5 })).body.error.message).toBe('expiresInDays: must be an integer');
    expect((await create({ name: 'x', scopes: [] })).body.error.message).toBe('scopes: is not a known field');
  });

  it('pages newest first', async () => {
    const fresh = await newWorkspace();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c'])
      ids.push((await call('POST', '/api/v1/access-keys', { token: fresh.apiKey, body: { name } })).body.data.id);
    const first = await call('GET', '/api/v1/access-keys?limit=2', { token: fresh.apiKey });
    const second = await call('GET', `/api/v1/access-keys?limit=2&cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`, {
      token: fresh.apiKey,
    });
    expect([...first.body.data, ...second.body.data].map((k: { id: string }) => k.id)).toEqual(ids.reverse());
  });

  it("answers NOT_FOUND for another workspace's key and malformed ids with VALIDATION_ERROR", async () => {
    const other = await newWorkspace();
    const theirs = (await call('POST', '/api/v1/access-keys', { token: other.apiKey, body: { name: 'theirs' } })).body.data;
    expect((await call('POST', `/api/v1/access-keys/${theirs.id}/revoke`, { token: ws.apiKey })).status).toBe(404);
    expect((await call('GET', '/api/v1/projects', { token: theirs.token })).status).toBe(200);
    expect((await call('POST', '/api/v1/access-keys/key_1/revoke', { token: ws.apiKey })).body.error.message).toBe('id: must be an ak_ id');
  });

  it('lets people (JWT) manage keys and forbids machine tokens from access keys, audit and creating projects or environments', async () => {
    const user = await userToken({ sub: 'usr_01JEEEEEEEEEEEEEEEEEEEEEEE', workspace_id: ws.workspaceId, roles: ['admin'] });
    const key = (await call('POST', '/api/v1/access-keys', { token: user, body: { name: 'by a person' } })).body.data;
    expect(key.createdBy).toBe('usr_01JEEEEEEEEEEEEEEEEEEEEEEE');
    const token = key.token as string;
    const project = (await call('GET', '/api/v1/projects', { token })).body.data[0];
    const forbidden: [string, string, unknown?][] = [
      ['GET', '/api/v1/access-keys'],
      ['POST', '/api/v1/access-keys', { name: 'escalate' }],
      ['POST', `/api/v1/access-keys/${key.id}/revoke`],
      ['GET', '/api/v1/audit'],
      ['POST', '/api/v1/projects', { name: 'p' }],
      ['POST', `/api/v1/projects/${project.id}/environments`, { name: 'e' }],
    ];
    for (const [method, path, body] of forbidden) {
      const answer = await call(method, path, { token, body });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error.code).toBe('FORBIDDEN');
    }
    expect((await call('GET', '/api/v1/access-keys', { token: user })).status).toBe(200);
  });
});
