import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashToken } from '../../../shared/access/tokens.ts';
import { iso } from '../../../shared/platform/clock.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * An access key's scope over its life (decisions.md, "Permissions of access keys"): the limits of its rules and
 * networks, truthful paging of a filtered list, a PATCH that the very next request of an existing token sees, the
 * source-address check, and the throttle of access.denied entries.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let env: { project: { id: string; slug: string }; environment: { id: string; slug: string } };

const create = (body: Record<string, unknown>) => call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'k', ...body } });
const rule = (overrides: Record<string, unknown> = {}) => ({ actions: ['read'], ...overrides });

beforeAll(async () => {
  ws = await newWorkspace();
  env = await newEnvironment(ws.apiKey, { project: 'paging', environment: 'dev' });
});

describe('access keys: the limits of permissions and allowedCidrs', () => {
  it('takes 50 rules, 20 patterns of 256 characters and 20 CIDRs; refuses one more of each, naming the field', async () => {
    const long = 'a'.repeat(256);
    expect((await create({ permissions: Array.from({ length: 50 }, () => rule()) })).status).toBe(201);
    expect((await create({ permissions: [rule({ projects: Array(20).fill(long), keys: Array(20).fill('K'.repeat(256)) })] })).status).toBe(
      201,
    );
    expect((await create({ allowedCidrs: Array.from({ length: 20 }, (_, i) => `10.${i}.0.0/16`) })).status).toBe(201);
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ permissions: Array.from({ length: 51 }, () => rule()) }, /^permissions: /],
      [{ permissions: [] }, /^permissions: /],
      [{ permissions: [rule({ projects: Array(21).fill('p') })] }, /^permissions\.0\.projects: /],
      [{ permissions: [rule({ projects: ['a'.repeat(257)] })] }, /^permissions\.0\.projects\.0: /],
      [
        { permissions: [rule({ environments: ['Prod'] })] },
        /^permissions\.0\.environments\.0: may contain only a-z, 0-9, "-", "\*" and "\?"/,
      ],
      [{ permissions: [rule({ keys: [] })] }, /^permissions\.0\.keys: /],
      [{ permissions: [rule({ actions: [] })] }, /^permissions\.0\.actions: /],
      [{ permissions: [rule({ actions: ['read', 'read'] })] }, /^permissions\.0\.actions: must not repeat an action/],
      [{ permissions: [rule({ actions: ['admin'] })] }, /^permissions\.0\.actions\.0: /],
      [{ permissions: [{ effect: 'allow' }] }, /^permissions\.0\.actions: /],
      [{ permissions: [rule({ effect: 'maybe' })] }, /^permissions\.0\.effect: /],
      [{ permissions: [rule({ paths: ['x'] })] }, /^permissions\.0\.paths: /],
      [{ allowedCidrs: Array.from({ length: 21 }, (_, i) => `10.${i}.0.0/16`) }, /^allowedCidrs: /],
      ...['10.0.0.0', '10.0.0.0/33', '10.0.0.0/08', '2001:db8::/129', 'fe80::1%eth0/64', 'example.com/24', '10.0.0.0/8/8'].map(
        (cidr): [Record<string, unknown>, RegExp] => [{ allowedCidrs: [cidr] }, /^allowedCidrs\.0: must be an IPv4 or IPv6 CIDR/],
      ),
    ];
    for (const [body, message] of refusals) {
      const answer = await create(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await create({ allowedCidrs: ['2001:db8::/32', '0.0.0.0/0', '::/0', '203.0.113.7/32'] })).status).toBe(201);
  });

  it('shows every rule with its defaults on create, list and update; PATCH needs a field and refuses a revoked key', async () => {
    const created = (await create({ permissions: [rule({ environments: ['dev'] })] })).body.data;
    const filled = { effect: 'allow', projects: ['*'], environments: ['dev'], keys: ['**'], actions: ['read'] };
    expect(created.permissions).toEqual([filled]);
    const listed = (await call('GET', '/api/v1/access-keys?limit=200', { token: ws.apiKey })).body.data.find(
      (k: { id: string }) => k.id === created.id,
    );
    expect(listed).toMatchObject({ permissions: [filled], allowedCidrs: [] });
    expect(listed).not.toHaveProperty('token');
    const patch = (body: unknown, id = created.id) => call('PATCH', `/api/v1/access-keys/${id}`, { token: ws.apiKey, body });
    expect((await patch({})).body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'body: must name at least one of name, permissions, allowedCidrs',
    });
    expect((await patch({ name: 'renamed' })).body.data).toMatchObject({ name: 'renamed', permissions: [filled] });
    expect((await patch({ name: 'x' }, newId('accessKey'))).body.error.code).toBe('NOT_FOUND');
    await call('POST', `/api/v1/access-keys/${created.id}/revoke`, { token: ws.apiKey });
    expect((await patch({ name: 'late' })).body.error.code).toBe('CONFLICT');
    const audit = (await call('GET', `/api/v1/audit?action=access_key.update&target=${created.id}`, { token: ws.apiKey })).body.data;
    expect(audit).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ changed: ['name'], name: 'renamed' }) })]);
  });
});

describe('access keys: a filtered list pages truthfully', () => {
  it('pages 300 secrets at limit 7 for a key that sees every other one: each visible key exactly once, none hidden', async () => {
    const all = Array.from({ length: 300 }, (_, i) => `K_${String(i).padStart(3, '0')}`);
    for (let start = 0; start < all.length; start += 20) {
      await Promise.all(
        all
          .slice(start, start + 20)
          .map((key) => call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } })),
      );
    }
    const even = (await create({ permissions: [rule({ keys: ['K_??0', 'K_??2', 'K_??4', 'K_??6', 'K_??8'] })] })).body.data.token;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call('GET', `/api/v1/environments/${env.environment.id}/secrets?${query}`, { token: even });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.body.data.map((s: { key: string }) => s.key));
      ({ nextCursor: cursor } = page.body.meta.page);
      expect(page.body.meta.page.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toEqual(all.filter((key) => Number(key.slice(2)) % 2 === 0));
    expect(pages).toBe(Math.ceil(150 / 7));
  });
});

describe('access keys: a scoped search reads only its environments', () => {
  it('answers what a key bound to one environment may read, newest first, each once, and indexes an older environment first', async () => {
    const narrow = await newEnvironment(ws.apiKey, { project: 'narrow', environment: 'one' });
    const written: string[] = [];
    for (let i = 0; i < 12; i++) {
      const key = `N_${String(i).padStart(2, '0')}`;
      await call('PUT', `/api/v1/environments/${narrow.environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } });
      written.unshift(key);
    }
    // An environment from before the per-environment index: its key items lack the index keys, and it is not marked.
    const { doc, tableName } = localStore();
    const items = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}`, ':sk': `EKEY#${narrow.environment.id}#` },
      }),
    );
    for (const item of items.Items ?? [])
      await doc.send(
        new UpdateCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'REMOVE GSI4PK, GSI4SK' }),
      );
    for (const key of [
      keys.environment(ws.workspaceId, narrow.environment.id),
      keys.projectEnvironment(ws.workspaceId, narrow.project.id, narrow.environment.id),
    ]) {
      await doc.send(new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: 'REMOVE searchIndexed' }));
    }
    const token = (
      await create({
        permissions: [
          rule({ projects: ['narrow'], environments: ['one'], keys: ['N_*'] }),
          { effect: 'deny', keys: ['N_05'], actions: ['read'] },
        ],
      })
    ).body.data.token;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call('GET', `/api/v1/search/secrets?${query}`, { token });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: { path: string }) => s.path));
      cursor = page.body.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(written.filter((key) => key !== 'N_05').map((key) => `narrow/one/${key}`));
    const hits = await call('GET', '/api/v1/search/secrets?q=n_1', { token });
    expect(hits.body.data.map((s: { key: string }) => s.key)).toEqual(['N_11', 'N_10']);
    const marked = await doc.send(new GetCommand({ TableName: tableName, Key: keys.environment(ws.workspaceId, narrow.environment.id) }));
    expect(marked.Item?.searchIndexed).toBe(true);
  });
});

describe('access keys: changes reach existing tokens at once', () => {
  it('narrows an existing token on its very next request', async () => {
    const id = (
      await call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, { token: ws.apiKey, body: { key: 'NARROW', value: 'v' } })
    ).body.data.id;
    const key = (await create({ permissions: [rule({ actions: ['read', 'reveal'] })] })).body.data;
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: key.token })).status).toBe(200);
    await call('PATCH', `/api/v1/access-keys/${key.id}`, { token: ws.apiKey, body: { permissions: [rule()] } });
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: key.token })).body.error.code).toBe('FORBIDDEN');
    await call('PATCH', `/api/v1/access-keys/${key.id}`, { token: ws.apiKey, body: { permissions: [rule({ projects: ['elsewhere'] })] } });
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: key.token })).body.error.code).toBe('NOT_FOUND');
    // The token item carries the rules gzipped, with a digest of their text.
    const { doc, tableName } = localStore();
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.token(hashToken(key.token)) }))).Item!;
    expect(JSON.parse(gunzipSync(item.rules as Uint8Array).toString())).toEqual([
      expect.objectContaining({ projects: ['elsewhere'], actions: ['read'] }),
    ]);
    expect(item.rulesId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('refuses a request from outside allowedCidrs with FORBIDDEN and does not count it as use; X-Forwarded-For is ignored', async () => {
    const key = (await create({ allowedCidrs: ['203.0.113.0/24'] })).body.data;
    const refused = await call('GET', '/api/v1/projects', { token: key.token, headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/allowedCidrs/);
    const { doc, tableName } = localStore();
    const tokenItem = async () => (await doc.send(new GetCommand({ TableName: tableName, Key: keys.token(hashToken(key.token)) }))).Item!;
    expect((await tokenItem()).lastUsedAt).toBeUndefined();
    await call('PATCH', `/api/v1/access-keys/${key.id}`, { token: ws.apiKey, body: { allowedCidrs: ['127.0.0.0/8', '::1/128'] } });
    expect((await call('GET', '/api/v1/projects', { token: key.token })).status).toBe(200);
    expect((await tokenItem()).lastUsedAt).toEqual(expect.any(String));
  });
});

describe('access keys: denied attempts in the audit', () => {
  it('writes at most one access.denied entry a minute per credential, action and secret, counting the attempts between', async () => {
    const { store } = localStore();
    const credentialId = newId('accessKey');
    const t0 = Date.parse('2026-11-25T10:00:00Z');
    const entry =
      (now: number) =>
      ({ count, since }: { count: number; since: string | null }) => ({
        id: newId('audit', now),
        action: 'access.denied' as const,
        actorSub: 'mid_x',
        target: 'sec_x',
        metadata: { count, since },
        createdAt: iso(now),
        accountId: 'acc_x',
      });
    const attempt = (seconds: number) =>
      store.recordDenial(ws.workspaceId, credentialId, 'reveal#env_x#K', entry(t0 + seconds * 1000), t0 + seconds * 1000);
    const written = [await attempt(0), await attempt(10), await attempt(20), await attempt(59), await attempt(61), await attempt(62)];
    expect(written).toEqual([true, false, false, false, true, false]);
    const other = await store.recordDenial(ws.workspaceId, credentialId, 'reveal#env_x#OTHER', entry(t0 + 63_000), t0 + 63_000);
    expect(other).toBe(true);
    const entries = (await store.listAudit(ws.workspaceId, { limit: 10 }, { action: 'access.denied', target: 'sec_x' })).items;
    // The first attempt, the five after it (61 s later), and the first attempt at another secret.
    expect(entries.map((e) => e.metadata).reverse()).toEqual([
      { count: 1, since: null },
      { count: 4, since: iso(t0) },
      { count: 1, since: null },
    ]);
  });
});
