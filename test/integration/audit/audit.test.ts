import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

describe('GET /api/v1/audit', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let secretId: string;
  let middle: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    secretId = (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'A', value: 'x' } }))
      .body.data.id;
    await new Promise((resolve) => setTimeout(resolve, 5));
    middle = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await call('POST', `/api/v1/secrets/${secretId}/reveal`, { token: ws.apiKey });
    await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'B', value: 'y' } });
  });

  it('lists the workspace audit log newest first with the entry fields of api.md', async () => {
    const answer = await call('GET', '/api/v1/audit', { token: ws.apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((e: { action: string }) => e.action)).toEqual([
      'secret.create',
      'secret.reveal',
      'secret.create',
      'environment.create',
      'project.create',
    ]);
    expect(answer.body.data[1]).toEqual({
      id: expect.stringMatching(/^aud_/),
      action: 'secret.reveal',
      actorSub: ws.apiKeyId,
      target: secretId,
      metadata: expect.objectContaining({ key: 'A', version: 1, credentialKind: 'api_key' }),
      createdAt: expect.any(String),
    });
    expect(answer.body.meta.page).toEqual({ limit: 50, nextCursor: null, hasMore: false });
  });

  it('filters by action, target, actorSub and a time range, and pages', async () => {
    const get = async (query: string) => (await call('GET', `/api/v1/audit?${query}`, { token: ws.apiKey })).body;
    expect((await get('action=secret.reveal')).data).toHaveLength(1);
    expect((await get(`target=${secretId}`)).data.map((e: { action: string }) => e.action)).toEqual(['secret.reveal', 'secret.create']);
    expect((await get(`actorSub=${ws.apiKeyId}`)).data).toHaveLength(5);
    expect((await get('actorSub=usr_nobody')).data).toEqual([]);
    expect((await get(`since=${encodeURIComponent(middle)}`)).data.map((e: { action: string }) => e.action)).toEqual([
      'secret.create',
      'secret.reveal',
    ]);
    expect((await get(`until=${encodeURIComponent(middle)}`)).data).toHaveLength(3);
    const first = await get('limit=2&action=secret.create');
    expect(first.data).toHaveLength(2);
    expect(first.meta.page.hasMore).toBe(false);
    const paged = await get('limit=2');
    const next = await get(`limit=2&cursor=${encodeURIComponent(paged.meta.page.nextCursor)}`);
    expect(next.data.map((e: { action: string }) => e.action)).toEqual(['secret.create', 'environment.create']);
    const crossFilter = await call(
      'GET',
      `/api/v1/audit?limit=2&action=secret.create&cursor=${encodeURIComponent(paged.meta.page.nextCursor)}`,
      { token: ws.apiKey },
    );
    expect(crossFilter.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses unknown actions, bad timestamps, until before since and unknown fields', async () => {
    const bad = async (query: string) => (await call('GET', `/api/v1/audit?${query}`, { token: ws.apiKey })).body.error;
    expect((await bad('action=secret.peek')).message).toMatch(/^action: must be one of/);
    expect((await bad('since=yesterday')).message).toBe('since: must be an ISO 8601 timestamp');
    expect((await bad('since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z')).message).toBe('until: must not be before since');
    expect((await bad('sort=asc')).message).toBe('sort: is not a known field');
    expect((await bad('limit=201')).code).toBe('VALIDATION_ERROR');
  });

  it('is open to API keys and people, never shows another workspace, and is FORBIDDEN to machine tokens', async () => {
    const user = await userToken({ sub: 'usr_01JDDDDDDDDDDDDDDDDDDDDDDD', workspace_id: ws.workspaceId, roles: 'admin' });
    expect((await call('GET', '/api/v1/audit', { token: user })).body.data).toHaveLength(5);
    const other = await newWorkspace();
    expect((await call('GET', '/api/v1/audit', { token: other.apiKey })).body.data).toEqual([]);
    expect((await call('GET', `/api/v1/audit?target=${secretId}`, { token: other.apiKey })).body.data).toEqual([]);
  });
});
