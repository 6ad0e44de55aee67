import { beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { call, localStore, newWorkspace } from '../../support/api.ts';

describe('projects', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  beforeAll(async () => {
    ws = await newWorkspace();
  });

  it('creates a project with a slug and writes project.create in the audit log', async () => {
    const answer = await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Crème Brûlée API!' } });
    expect(answer.status).toBe(201);
    expect(answer.body.error).toBeNull();
    expect(answer.body.data).toMatchObject({ name: 'Crème Brûlée API!', slug: 'creme-brulee-api', createdBy: ws.apiKeyId });
    expect(answer.body.data.id).toMatch(/^proj_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Date.parse(answer.body.data.createdAt)).not.toBeNaN();
    const page = await localStore().store.listAudit(ws.workspaceId, { limit: 50 });
    const entry = page.items.find((item) => item.target === answer.body.data.id);
    expect(entry).toMatchObject({ action: 'project.create', actorSub: ws.apiKeyId, metadata: { credentialKind: 'api_key' } });
  });

  it('accepts names of 1 and 120 characters and refuses 0 and 121, naming the field and rule', async () => {
    for (const name of ['a', 'n'.repeat(120)]) {
      expect((await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name } })).status).toBe(201);
    }
    const empty = await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be at least 1 character' });
    const long = await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'n'.repeat(121) } });
    expect(long.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be at most 120 characters' });
  });

  it('refuses unknown fields, a missing name, a wrong type, malformed JSON and a non-object body', async () => {
    const cases: [unknown, string | undefined, string][] = [
      [{ name: 'x', nmae: 'typo' }, undefined, 'nmae: is not a known field'],
      [{}, undefined, 'name: is required'],
      [{ name: 42 }, undefined, 'name: must be a string'],
      [undefined, '{"name": ', 'body: must be valid JSON'],
      [undefined, '', 'body: is required'],
      [['x'], undefined, 'body: must be an object'],
    ];
    for (const [body, rawBody, message] of cases) {
      const answer = await call('POST', '/api/v1/projects', { token: ws.apiKey, body, ...(rawBody !== undefined ? { rawBody } : {}) });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
    }
  });

  it('refuses a body over 256 KiB with PAYLOAD_TOO_LARGE and writes nothing', async () => {
    const before = (await call('GET', '/api/v1/projects?limit=200', { token: ws.apiKey })).body.data.length;
    const answer = await call('POST', '/api/v1/projects', {
      token: ws.apiKey,
      rawBody: JSON.stringify({ name: 'x', pad: 'p'.repeat(256 * 1024) }),
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await call('GET', '/api/v1/projects?limit=200', { token: ws.apiKey })).body.data.length).toBe(before);
  });

  it('makes unique slugs on a clash: app, app-2, app-3, even under concurrency', async () => {
    const fresh = await newWorkspace();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/api/v1/projects', { token: fresh.apiKey, body: { name: 'App' } })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const slugs = answers.map((a) => a.body.data.slug).sort();
    expect(slugs).toEqual(['app', 'app-2', 'app-3', 'app-4', 'app-5', 'app-6']);
  });

  it('falls back to "project" when the name has no letters or digits', async () => {
    const answer = await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: '!!! ???' } });
    expect(answer.body.data.slug).toMatch(/^project(-\d+)?$/);
  });

  it('finds a project by slug with the same object as the list, and NOT_FOUND otherwise', async () => {
    const created = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Billing' } })).body.data;
    const bySlug = await call('GET', `/api/v1/projects/by-slug/${created.slug}`, { token: ws.apiKey });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toEqual(created);
    const missing = await call('GET', '/api/v1/projects/by-slug/does-not-exist', { token: ws.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const invalid = await call('GET', '/api/v1/projects/by-slug/Not_A_Slug', { token: ws.apiKey });
    expect(invalid.status).toBe(400);
  });

  it("never shows another workspace's projects: lists are separate and its slug is NOT_FOUND", async () => {
    const other = await newWorkspace();
    const theirs = (await call('POST', '/api/v1/projects', { token: other.apiKey, body: { name: 'Their secret project' } })).body.data;
    const mine = await call('GET', '/api/v1/projects?limit=200', { token: ws.apiKey });
    expect(mine.body.data.map((p: { id: string }) => p.id)).not.toContain(theirs.id);
    const bySlug = await call('GET', `/api/v1/projects/by-slug/${theirs.slug}`, { token: ws.apiKey });
    expect(bySlug.status).toBe(404);
  });
});

describe('project list pagination', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  const created: string[] = [];
  beforeAll(async () => {
    ws = await newWorkspace();
    for (let i = 0; i < 5; i++) {
      created.push((await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: `P${i}` } })).body.data.id);
    }
  });

  it('pages newest first with limit, nextCursor and hasMore, and the last page has no cursor', async () => {
    const first = await call('GET', '/api/v1/projects?limit=2', { token: ws.apiKey });
    expect(first.body.meta.page).toMatchObject({ limit: 2, hasMore: true });
    const second = await call('GET', `/api/v1/projects?limit=2&cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    const third = await call('GET', `/api/v1/projects?limit=2&cursor=${encodeURIComponent(second.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    expect(third.body.meta.page).toEqual({ limit: 2, nextCursor: null, hasMore: false });
    const ids = [...first.body.data, ...second.body.data, ...third.body.data].map((p: { id: string }) => p.id);
    expect(ids).toEqual([...created].reverse());
    const exact = await call('GET', '/api/v1/projects?limit=5', { token: ws.apiKey });
    expect(exact.body.meta.page).toEqual({ limit: 5, nextCursor: null, hasMore: false });
  });

  it('uses 50 by default and refuses limits 0 and 201 and non-numbers', async () => {
    expect((await call('GET', '/api/v1/projects', { token: ws.apiKey })).body.meta.page.limit).toBe(50);
    expect((await call('GET', '/api/v1/projects?limit=200', { token: ws.apiKey })).status).toBe(200);
    expect((await call('GET', '/api/v1/projects?limit=1', { token: ws.apiKey })).body.data).toHaveLength(1);
    for (const limit of ['0', '201', 'ten', '-1', '1.5']) {
      const answer = await call('GET', `/api/v1/projects?limit=${limit}`, { token: ws.apiKey });
      expect(answer.status, limit).toBe(400);
      expect(answer.body.error.message).toMatch(/^limit: /);
    }
  });

  it('refuses altered cursors, cursors of another workspace, garbage and unknown query fields', async () => {
    const cursor = (await call('GET', '/api/v1/projects?limit=1', { token: ws.apiKey })).body.meta.page.nextCursor as string;
    const [body, mac] = cursor.split('.') as [string, string];
    const sealed = Buffer.from(body, 'base64url');
    sealed[sealed.length - 1]! ^= 1;
    const altered = `${sealed.toString('base64url')}.${mac}`;
    const other = await newWorkspace();
    for (const bad of [altered, `${body}.${mac.slice(1)}`, 'garbage', `${body}`, cursor]) {
      const token = bad === cursor ? other.apiKey : ws.apiKey;
      const answer = await call('GET', `/api/v1/projects?cursor=${encodeURIComponent(bad)}`, { token });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'cursor: is not a valid cursor for this list' });
    }
    const unknown = await call('GET', '/api/v1/projects?sort=asc', { token: ws.apiKey });
    expect(unknown.body.error.message).toBe('sort: is not a known field');
  });

  it('stores the project, its slug claim and the audit entry, and nothing for refused requests', async () => {
    const { doc, tableName } = localStore();
    const items = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}` },
      }),
    );
    const types = (items.Items ?? []).map((item) => item.type);
    expect(types.filter((t) => t === 'Project')).toHaveLength(5);
    expect(types.filter((t) => t === 'ProjectSlug')).toHaveLength(5);
  });
});
