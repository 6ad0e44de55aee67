import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * Least privilege over HTTP (decisions.md, "Permissions of access keys"): for every route that reads or acts on
 * secrets, projects and environments, a key that may (success), a key that may read but not act (FORBIDDEN, audited
 * as access.denied) and a key that may not read (NOT_FOUND, and absent from lists, search and bulk reveals).
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

let ws: Ws;
let staging: { project: { id: string; slug: string }; environment: { id: string; slug: string } };
let prod: { id: string; slug: string };
const ids: Record<string, string> = {};
/** Keys scoped to api/staging: every action, read only; and one scoped to another project. */
const tokens = { may: '', readOnly: '', noRead: '', dbOnly: '' };

const put = (token: string, envId: string, key: string, value = 'v') =>
  call('PUT', `/api/v1/environments/${envId}/secrets`, { token, body: { key, value } });
const accessKey = async (name: string, permissions?: unknown[], extra: Record<string, unknown> = {}) => {
  const answer = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: { name, ...(permissions && { permissions }), ...extra },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data as { id: string; token: string; permissions: unknown[] };
};
const deniedEntries = async () =>
  (await call('GET', '/api/v1/audit?action=access.denied&limit=200', { token: ws.apiKey })).body.data as {
    target: string;
    metadata: Record<string, unknown>;
  }[];

beforeAll(async () => {
  ws = await newWorkspace();
  staging = await newEnvironment(ws.apiKey, { project: 'api', environment: 'staging' });
  prod = (await call('POST', `/api/v1/projects/${staging.project.id}/environments`, { token: ws.apiKey, body: { name: 'prod' } })).body
    .data;
  const web = await newEnvironment(ws.apiKey, { project: 'web', environment: 'prod' });
  for (const [name, envId] of [
    ['DB_URL', staging.environment.id],
    ['DEPLOY_TOKEN', staging.environment.id],
    ['DB_PASSWORD', prod.id],
    ['WEB_KEY', web.environment.id],
  ] as const) {
    ids[name] = (await put(ws.apiKey, envId, name, `value-of-${name}`)).body.data.id;
  }
  const scope = { projects: ['api'], environments: ['staging'] };
  tokens.may = (await accessKey('may', [{ ...scope, actions: ['read', 'reveal', 'write', 'delete'] }])).token;
  tokens.readOnly = (await accessKey('read-only', [{ ...scope, actions: ['read'] }])).token;
  tokens.noRead = (await accessKey('web-only', [{ projects: ['web'], actions: ['read', 'reveal', 'write', 'delete'] }])).token;
  tokens.dbOnly = (await accessKey('db-only', [{ ...scope, keys: ['DB_*'], actions: ['reveal'] }])).token;
});

describe('permissions: projects and environments', () => {
  it('lists, finds and hides projects and environments by the rules', async () => {
    const slugs = async (token: string) =>
      (await call('GET', '/api/v1/projects', { token })).body.data.map((p: { slug: string }) => p.slug);
    expect(await slugs(tokens.may)).toEqual(['api']);
    expect(await slugs(tokens.noRead)).toEqual(['web']);
    expect((await call('GET', '/api/v1/projects/by-slug/api', { token: tokens.readOnly })).status).toBe(200);
    expect((await call('GET', '/api/v1/projects/by-slug/api', { token: tokens.noRead })).body.error.code).toBe('NOT_FOUND');
    const envs = await call('GET', `/api/v1/projects/${staging.project.id}/environments`, { token: tokens.readOnly });
    expect(envs.body.data.map((e: { slug: string }) => e.slug)).toEqual(['staging']);
    expect((await call('GET', `/api/v1/projects/${staging.project.id}/environments`, { token: tokens.noRead })).body.error.code).toBe(
      'NOT_FOUND',
    );
    expect((await call('GET', '/api/v1/projects/by-slug/api/environments/staging', { token: tokens.readOnly })).status).toBe(200);
    expect((await call('GET', '/api/v1/projects/by-slug/api/environments/prod', { token: tokens.readOnly })).body.error.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('permissions: secret routes', () => {
  it('lists and searches only what a key may read; another environment is NOT_FOUND', async () => {
    const keysOf = async (path: string, token: string) => (await call('GET', path, { token })).body.data.map((s: { key: string }) => s.key);
    expect(await keysOf(`/api/v1/environments/${staging.environment.id}/secrets`, tokens.readOnly)).toEqual(['DB_URL', 'DEPLOY_TOKEN']);
    expect(await keysOf(`/api/v1/environments/${staging.environment.id}/secrets`, tokens.dbOnly)).toEqual(['DB_URL']);
    expect((await call('GET', `/api/v1/environments/${prod.id}/secrets`, { token: tokens.readOnly })).body.error.code).toBe('NOT_FOUND');
    expect((await call('GET', `/api/v1/environments/${staging.environment.id}/secrets`, { token: tokens.noRead })).body.error.code).toBe(
      'NOT_FOUND',
    );
    expect(await keysOf('/api/v1/search/secrets?q=DB', tokens.readOnly)).toEqual(['DB_URL']);
    expect(await keysOf('/api/v1/search/secrets', tokens.noRead)).toEqual(['WEB_KEY']);
    expect((await keysOf('/api/v1/search/secrets', ws.apiKey)).sort()).toEqual(['DB_PASSWORD', 'DB_URL', 'DEPLOY_TOKEN', 'WEB_KEY']);
  });

  it('reveals by id and by path what a key may reveal; FORBIDDEN (audited) to a reader, NOT_FOUND to the rest', async () => {
    const byId = (token: string, name = 'DB_URL') => call('POST', `/api/v1/secrets/${ids[name]}/reveal`, { token });
    const byPath = (token: string, path = 'api/staging/DB_URL') => call('POST', '/api/v1/reveal', { token, body: { path } });
    expect((await byId(tokens.may)).body.data.value).toBe('value-of-DB_URL');
    expect((await byPath(tokens.dbOnly)).body.data.value).toBe('value-of-DB_URL');
    for (const answer of [await byId(tokens.readOnly), await byPath(tokens.readOnly)]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('FORBIDDEN');
      expect(JSON.stringify(answer.body)).not.toContain('value-of');
    }
    for (const answer of [
      await byId(tokens.noRead),
      await byPath(tokens.noRead),
      await byId(tokens.dbOnly, 'DEPLOY_TOKEN'),
      await byId(tokens.may, 'DB_PASSWORD'),
    ]) {
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    const denied = (await deniedEntries()).filter((entry) => entry.target === ids.DB_URL);
    expect(denied[0]).toMatchObject({
      metadata: {
        attemptedAction: 'reveal',
        key: 'DB_URL',
        projectId: staging.project.id,
        environmentId: staging.environment.id,
        credentialKind: 'machine',
      },
    });
  });

  it('writes only with write: FORBIDDEN whether the key exists or not, NOT_FOUND for an environment it cannot see', async () => {
    expect((await put(tokens.may, staging.environment.id, 'NEW_KEY')).body.data.version).toBe(1);
    for (const key of ['DB_URL', 'NEVER_WRITTEN']) {
      const answer = await put(tokens.readOnly, staging.environment.id, key);
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toBe(`This credential may not write ${key} in api/staging`);
    }
    expect((await put(tokens.noRead, staging.environment.id, 'X')).body.error.code).toBe('NOT_FOUND');
    expect((await put(tokens.may, prod.id, 'X')).body.error.code).toBe('NOT_FOUND');
    const list = await call('GET', `/api/v1/environments/${staging.environment.id}/secrets`, { token: ws.apiKey });
    expect(list.body.data.map((s: { key: string }) => s.key)).not.toContain('NEVER_WRITTEN');
  });

  it('shows versions to readers, rolls back with write, deletes with delete', async () => {
    const id = (await put(ws.apiKey, staging.environment.id, 'ROTATED', 'one')).body.data.id;
    await put(ws.apiKey, staging.environment.id, 'ROTATED', 'two');
    expect((await call('GET', `/api/v1/secrets/${id}/versions`, { token: tokens.readOnly })).body.data).toHaveLength(2);
    expect((await call('GET', `/api/v1/secrets/${id}/versions`, { token: tokens.noRead })).body.error.code).toBe('NOT_FOUND');
    const rollback = (token: string) => call('POST', `/api/v1/secrets/${id}/rollback`, { token, body: { version: 1 } });
    expect((await rollback(tokens.readOnly)).body.error.code).toBe('FORBIDDEN');
    expect((await rollback(tokens.noRead)).body.error.code).toBe('NOT_FOUND');
    expect((await rollback(tokens.may)).body.data.version).toBe(3);
    const remove = (token: string) => call('DELETE', `/api/v1/secrets/${id}`, { token });
    expect((await remove(tokens.readOnly)).body.error.code).toBe('FORBIDDEN');
    expect((await remove(tokens.noRead)).body.error.code).toBe('NOT_FOUND');
    expect((await remove(tokens.may)).body.data.deleted).toBe(true);
    const actions = (await deniedEntries()).filter((entry) => entry.target === id).map((entry) => entry.metadata.attemptedAction);
    expect(actions.sort()).toEqual(['delete', 'write']);
  });

  it('loads an environment with only what a key may reveal; FORBIDDEN when it may reveal nothing there', async () => {
    const load = (token: string) => call('POST', `/api/v1/environments/${staging.environment.id}/secrets/reveal`, { token, body: {} });
    const keys = (await load(tokens.dbOnly)).body.data.map((s: { key: string }) => s.key);
    expect(keys).toEqual(['DB_URL']);
    expect((await load(tokens.may)).body.data.map((s: { key: string }) => s.key)).toEqual(
      expect.arrayContaining(['DB_URL', 'DEPLOY_TOKEN']),
    );
    expect((await load(tokens.readOnly)).body.error.code).toBe('FORBIDDEN');
    expect((await load(tokens.noRead)).body.error.code).toBe('NOT_FOUND');
    const bulkDenied = (await deniedEntries()).filter((entry) => entry.target === staging.environment.id);
    expect(bulkDenied[0]?.metadata).toMatchObject({ attemptedAction: 'reveal', key: null, environmentId: staging.environment.id });
  });

  it('hides an environment from a key whose deny rule covers all of it, and denies actions a deny rule names', async () => {
    const noProd = (
      await accessKey('all-but-prod', [
        { actions: ['read', 'reveal', 'write', 'delete'] },
        { effect: 'deny', environments: ['prod'], actions: ['read'] },
        { effect: 'deny', keys: ['DEPLOY_*'], actions: ['reveal'] },
      ])
    ).token;
    expect((await call('GET', `/api/v1/environments/${prod.id}/secrets`, { token: noProd })).body.error.code).toBe('NOT_FOUND');
    const envs = await call('GET', `/api/v1/projects/${staging.project.id}/environments`, { token: noProd });
    expect(envs.body.data.map((e: { slug: string }) => e.slug)).toEqual(['staging']);
    expect((await call('POST', `/api/v1/secrets/${ids.DEPLOY_TOKEN}/reveal`, { token: noProd })).body.error.code).toBe('FORBIDDEN');
    expect((await call('POST', `/api/v1/secrets/${ids.DB_URL}/reveal`, { token: noProd })).status).toBe(200);
  });
});
