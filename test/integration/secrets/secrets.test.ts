import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

async function auditFor(ws: Ws, target: string, action?: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 200 }, { target, ...(action ? { action } : {}) });
  return page.items;
}

describe('secret lifecycle', () => {
  let ws: Ws;
  let env: Awaited<ReturnType<typeof newEnvironment>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    env = await newEnvironment(ws.apiKey, { project: 'Billing API', environment: 'Production' });
  });

  it('creates, rotates, reveals every version by id and by path, lists, searches, deletes, then NOT_FOUND', async () => {
    const put = (value: string) =>
      call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, { token: ws.apiKey, body: { key: 'STRIPE_KEY', value } });
    const created = await put('v1-value');
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({ id: expect.stringMatching(/^sec_/), key: 'STRIPE_KEY', version: 1 });
    const id = created.body.data.id as string;
    for (let v = 2; v <= 5; v++) expect((await put(`v${v}-value`)).body.data).toEqual({ id, key: 'STRIPE_KEY', version: v });

    const current = await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey });
    expect(current.body.data).toEqual({ key: 'STRIPE_KEY', version: 5, value: 'v5-value' });
    for (let v = 1; v <= 5; v++) {
      expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=${v}`, { token: ws.apiKey })).body.data.value).toBe(`v${v}-value`);
    }
    const path = `billing-api/production/STRIPE_KEY`;
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path } })).body.data).toEqual({
      id,
      key: 'STRIPE_KEY',
      version: 5,
      value: 'v5-value',
    });
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path, version: 2 } })).body.data.value).toBe('v2-value');
    expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=6`, { token: ws.apiKey })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path, version: 6 } })).status).toBe(404);

    const list = await call('GET', `/api/v1/environments/${env.environment.id}/secrets`, { token: ws.apiKey });
    expect(list.body.data).toEqual([
      { id, key: 'STRIPE_KEY', currentVersion: 5, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    expect(JSON.stringify(list.body)).not.toContain('value');
    const search = await call('GET', '/api/v1/search/secrets?q=stripe', { token: ws.apiKey });
    expect(search.body.data).toEqual([
      expect.objectContaining({
        id,
        key: 'STRIPE_KEY',
        projectSlug: 'billing-api',
        envSlug: 'production',
        path,
        projectId: env.project.id,
        environmentId: env.environment.id,
      }),
    ]);

    const deleted = await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey });
    expect(deleted.body.data).toEqual({ id, deleted: true });
    for (const answer of [
      await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey }),
      await call('POST', `/api/v1/secrets/${id}/reveal?version=1`, { token: ws.apiKey }),
      await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path } }),
      await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey }),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    expect((await call('GET', `/api/v1/environments/${env.environment.id}/secrets`, { token: ws.apiKey })).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/search/secrets?q=stripe', { token: ws.apiKey })).body.data).toEqual([]);
    const again = await put('fresh');
    expect(again.body.data.version).toBe(1);
    expect(again.body.data.id).not.toBe(id);
  });

  it('audits create, rotate, every reveal exactly once, and delete, with metadata and never a value', async () => {
    const key = 'AUDITED';
    const w1 = (
      await call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, {
        token: ws.apiKey,
        body: { key, value: 'first-secret-value' },
      })
    ).body.data;
    await call('PUT', `/api/v1/environments/${env.environment.id}/secrets`, {
      token: ws.apiKey,
      body: { key, value: 'second-secret-value' },
    });
    await call('POST', `/api/v1/secrets/${w1.id}/reveal`, { token: ws.apiKey });
    await call('POST', `/api/v1/secrets/${w1.id}/reveal?version=1`, { token: ws.apiKey });
    await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: `billing-api/production/${key}` } });
    await call('DELETE', `/api/v1/secrets/${w1.id}`, { token: ws.apiKey });
    const entries = await auditFor(ws, w1.id);
    expect(entries.map((e) => e.action)).toEqual([
      'secret.delete',
      'secret.reveal',
      'secret.reveal',
      'secret.reveal',
      'secret.rotate',
      'secret.create',
    ]);
    const meta = { key, projectId: env.project.id, environmentId: env.environment.id, credentialKind: 'api_key' };
    expect(entries[3]).toMatchObject({ actorSub: ws.apiKeyId, metadata: { ...meta, version: 2 } });
    expect(entries[2]!.metadata).toEqual({ ...meta, version: 1 });
    expect(entries[0]!.metadata).toEqual({ ...meta, recoveryWindowDays: 7, purgeAt: expect.any(String) });
    expect(JSON.stringify(entries)).not.toMatch(/secret-value/);
  });

  it('supports If-Match: 0 for create-only, the current version for check-and-set, CONFLICT otherwise', async () => {
    const path = `/api/v1/environments/${env.environment.id}/secrets`;
    const body = { key: 'CAS', value: 'a' };
    expect((await call('PUT', path, { token: ws.apiKey, body, headers: { 'if-match': '0' } })).body.data.version).toBe(1);
    const again = await call('PUT', path, { token: ws.apiKey, body, headers: { 'if-match': '0' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await call('PUT', path, { token: ws.apiKey, body, headers: { 'if-match': '"1"' } })).body.data.version).toBe(2);
    expect((await call('PUT', path, { token: ws.apiKey, body, headers: { 'if-match': '1' } })).status).toBe(409);
    expect((await call('PUT', path, { token: ws.apiKey, body, headers: { 'if-match': 'latest' } })).body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'if-match: must be a version number (0 = the key must not exist yet)',
    });
  });

  // 25 writers race on every version (each loser learns the new one and tries again). On this 2-core machine, with
  // CI's other test file beside it, DynamoDB Local runs the transactions one at a time, so a writer can run out of
  // its Lambda's 10 s: it then answers 503, and retries with its Idempotency-Key as a client does (409 with
  // Retry-After while the first try still runs, then its recorded answer). Whatever the retries, each write gets
  // exactly one version.
  it('gives 25 concurrent writes of one key versions 1..25, no gap and no duplicate', async () => {
    const path = `/api/v1/environments/${env.environment.id}/secrets`;
    const write = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const answer = await call('PUT', path, {
          token: ws.apiKey,
          body: { key: 'RACE', value: `value-${i}` },
          headers: { 'idempotency-key': `race-${i}` },
        });
        const retryAfter = answer.headers.get('retry-after');
        const retryable = answer.status === 503 || (answer.status === 409 && retryAfter !== null);
        if (!retryable || attempt === 20) return answer;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5, Number(retryAfter ?? 1)) * 1000));
      }
    };
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => write(i)));
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body?.error])).toEqual([]);
    const versions = answers.map((a) => a.body.data.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const id = answers[0]!.body.data.id;
    expect(new Set(answers.map((a) => a.body.data.id))).toEqual(new Set([id]));
    // Each version holds the value of the write that got it.
    for (const [i, answer] of answers.entries()) {
      const revealed = await call('POST', `/api/v1/secrets/${id}/reveal?version=${answer.body.data.version}`, { token: ws.apiKey });
      expect(revealed.body.data.value).toBe(`value-${i}`);
    }
    expect((await auditFor(ws, id, 'secret.rotate')).length + (await auditFor(ws, id, 'secret.create')).length).toBe(25);
  });
});

describe('secret limits and validation', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'p', environment: 'e' })).environment.id;
  });
  const put = (body: unknown) => call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body });

  it('accepts keys of 1 and 256 characters and refuses 0 and 257, and bad characters', async () => {
    expect((await put({ key: 'K', value: 'x' })).status).toBe(200);
    expect((await put({ key: 'k'.repeat(256), value: 'x' })).status).toBe(200);
    expect((await put({ key: '', value: 'x' })).body.error.message).toBe('key: must be at least 1 character');
    expect((await put({ key: 'k'.repeat(257), value: 'x' })).body.error.message).toBe('key: must be at most 256 characters');
    for (const key of ['has space', '/lead', 'trail/', 'a//b', 'ümlaut', 'a\u0000b']) {
      const answer = await put({ key, value: 'x' });
      expect(answer.status, key).toBe(400);
      expect(answer.body.error.message).toMatch(/^key: /);
    }
    expect((await put({ key: 'nested/path.to-KEY_1', value: 'x' })).status).toBe(200);
  });

  it('accepts values of 0 and 65536 characters and refuses 65537, and round-trips them exactly', async () => {
    const edge = 'é'.repeat(65536);
    const written = await put({ key: 'BIG', value: edge });
    expect(written.status).toBe(200);
    expect((await call('POST', `/api/v1/secrets/${written.body.data.id}/reveal`, { token: ws.apiKey })).body.data.value).toBe(edge);
    const empty = await put({ key: 'EMPTY', value: '' });
    expect((await call('POST', `/api/v1/secrets/${empty.body.data.id}/reveal`, { token: ws.apiKey })).body.data.value).toBe('');
    const over = await put({ key: 'BIG', value: 'x'.repeat(65537) });
    expect(over.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'value: must be at most 65536 characters' });
    const list = await call('GET', `/api/v1/environments/${envId}/secrets?limit=200`, { token: ws.apiKey });
    expect(list.body.data.find((s: { key: string }) => s.key === 'BIG').currentVersion).toBe(1);
  });

  it('refuses missing fields, unknown fields and wrong types', async () => {
    expect((await put({ key: 'A' })).body.error.message).toBe('value: is required');
    expect((await put({ value: 'x' })).body.error.message).toBe('key: is required');
    expect((await put({ key: 'A', value: 1 })).body.error.message).toBe('value: must be a string');
    expect((await put({ key: 'A', value: 'x', ttl: 5 })).body.error.message).toBe('ttl: is not a known field');
  });

  it('refuses version 0, negatives and non-integers on both reveal routes', async () => {
    const id = (await put({ key: 'V', value: 'x' })).body.data.id;
    for (const version of ['0', '-1', '1.5', 'abc']) {
      const answer = await call('POST', `/api/v1/secrets/${id}/reveal?version=${version}`, { token: ws.apiKey });
      expect(answer.status, version).toBe(400);
      expect(answer.body.error.message).toMatch(/^version: /);
    }
    for (const version of [0, -1, 1.5, '1']) {
      const answer = await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'p/e/V', version } });
      expect(answer.status, String(version)).toBe(400);
      expect(answer.body.error.message).toMatch(/^version: /);
    }
    expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=1`, { token: ws.apiKey })).status).toBe(200);
  });

  it('takes paths of 3 to 600 characters: 2 and 601 are refused, 3 and 600 are looked up', async () => {
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'p/' } })).body.error.message).toBe(
      'path: must be at least 3 characters',
    );
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'x'.repeat(601) } })).body.error.message).toBe(
      'path: must be at most 600 characters',
    );
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'p/e' } })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: `p/e/${'k'.repeat(596)}` } })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: `p/e/${'é'.repeat(596)}` } })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'p/e/V' } })).body.data.key).toBe('V');
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: {} })).body.error.message).toBe('path: is required');
  });

  it('refuses malformed ids, answers NOT_FOUND for unknown ones and for writes to unknown environments', async () => {
    expect((await call('POST', '/api/v1/secrets/nope/reveal', { token: ws.apiKey })).body.error.message).toBe(
      'secretId: must be a sec_ id',
    );
    expect((await call('POST', '/api/v1/secrets/sec_01JZZZZZZZZZZZZZZZZZZZZZZZ/reveal', { token: ws.apiKey })).status).toBe(404);
    expect((await call('DELETE', '/api/v1/secrets/sec_01JZZZZZZZZZZZZZZZZZZZZZZZ', { token: ws.apiKey })).status).toBe(404);
    const unknownEnv = 'env_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    expect(
      (await call('PUT', `/api/v1/environments/${unknownEnv}/secrets`, { token: ws.apiKey, body: { key: 'A', value: 'b' } })).status,
    ).toBe(404);
    expect((await call('GET', `/api/v1/environments/${unknownEnv}/secrets`, { token: ws.apiKey })).status).toBe(404);
  });
});

describe('secrets across workspaces and credentials', () => {
  it("answers NOT_FOUND for another workspace's secrets by id, path, environment, list and search", async () => {
    const owner = await newWorkspace();
    const intruder = await newWorkspace();
    const { environment } = await newEnvironment(owner.apiKey, { project: 'shared-name', environment: 'prod' });
    await newEnvironment(intruder.apiKey, { project: 'shared-name', environment: 'prod' });
    const id = (
      await call('PUT', `/api/v1/environments/${environment.id}/secrets`, {
        token: owner.apiKey,
        body: { key: 'TOKEN', value: 'owner-only' },
      })
    ).body.data.id;
    const token = intruder.apiKey;
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token })).status).toBe(404);
    expect((await call('POST', '/api/v1/reveal', { token, body: { path: 'shared-name/prod/TOKEN' } })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/secrets/${id}`, { token })).status).toBe(404);
    expect((await call('GET', `/api/v1/environments/${environment.id}/secrets`, { token })).status).toBe(404);
    expect(
      (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token, body: { key: 'TOKEN', value: 'x' } })).status,
    ).toBe(404);
    expect((await call('GET', '/api/v1/search/secrets?q=token', { token })).body.data).toEqual([]);
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: owner.apiKey })).body.data.value).toBe('owner-only');
  });

  it('lets a user (JWT) write and reveal, recording the usr_ subject and credential kind', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    const token = await userToken({ sub: 'usr_01JBBBBBBBBBBBBBBBBBBBBBBB', workspace_id: ws.workspaceId, roles: 'developer' });
    const id = (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token, body: { key: 'K', value: 'by-user' } })).body
      .data.id;
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token })).body.data.value).toBe('by-user');
    const [reveal] = await auditFor(ws, id, 'secret.reveal');
    expect(reveal).toMatchObject({ actorSub: 'usr_01JBBBBBBBBBBBBBBBBBBBBBBB', metadata: { credentialKind: 'user' } });
  });
});

describe('search', () => {
  it('matches a case-insensitive substring of the key across environments, newest first, paginated', async () => {
    const ws = await newWorkspace();
    const a = await newEnvironment(ws.apiKey, { project: 'api', environment: 'dev' });
    const b = await newEnvironment(ws.apiKey, { project: 'web', environment: 'prod' });
    for (const [envId, key] of [
      [a.environment.id, 'DATABASE_URL'],
      [b.environment.id, 'database_password'],
      [a.environment.id, 'REDIS_URL'],
      [b.environment.id, 'DbPoolSize'],
    ]) {
      await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } });
    }
    const hits = await call('GET', '/api/v1/search/secrets?q=DATABASE', { token: ws.apiKey });
    expect(hits.body.data.map((s: { path: string }) => s.path)).toEqual(['web/prod/database_password', 'api/dev/DATABASE_URL']);
    const all = await call('GET', '/api/v1/search/secrets?limit=3', { token: ws.apiKey });
    expect(all.body.data).toHaveLength(3);
    expect(all.body.meta.page.hasMore).toBe(true);
    const rest = await call('GET', `/api/v1/search/secrets?limit=3&cursor=${encodeURIComponent(all.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    expect(rest.body.data.map((s: { key: string }) => s.key)).toEqual(['DATABASE_URL']);
    const otherQuery = await call('GET', `/api/v1/search/secrets?q=url&cursor=${encodeURIComponent(all.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    expect(otherQuery.status).toBe(400);
    expect((await call('GET', '/api/v1/search/secrets?q=', { token: ws.apiKey })).status).toBe(400);
    expect((await call('GET', `/api/v1/search/secrets?q=${'q'.repeat(257)}`, { token: ws.apiKey })).status).toBe(400);
    expect((await call('GET', `/api/v1/search/secrets?q=${'q'.repeat(256)}`, { token: ws.apiKey })).body.data).toEqual([]);
  });
});
