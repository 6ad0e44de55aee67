import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';

describe('environments', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let project: { id: string; slug: string };
  beforeAll(async () => {
    ws = await newWorkspace();
    project = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Payments' } })).body.data;
  });

  it('creates environments with slugs unique per project and audits environment.create', async () => {
    const path = `/api/v1/projects/${project.id}/environments`;
    const first = await call('POST', path, { token: ws.apiKey, body: { name: 'Production' } });
    const second = await call('POST', path, { token: ws.apiKey, body: { name: 'production' } });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ name: 'Production', slug: 'production', projectId: project.id });
    expect(first.body.data.id).toMatch(/^env_/);
    expect(second.body.data.slug).toBe('production-2');
    const otherProject = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Other' } })).body.data;
    const elsewhere = await call('POST', `/api/v1/projects/${otherProject.id}/environments`, {
      token: ws.apiKey,
      body: { name: 'Production' },
    });
    expect(elsewhere.body.data.slug).toBe('production');
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 50 });
    expect(audit.items.find((e) => e.target === first.body.data.id)).toMatchObject({
      action: 'environment.create',
      metadata: { projectId: project.id, slug: 'production', credentialKind: 'api_key' },
    });
  });

  it("lists a project's environments newest first, paginated", async () => {
    const fresh = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Listing' } })).body.data;
    const path = `/api/v1/projects/${fresh.id}/environments`;
    const empty = await call('GET', path, { token: ws.apiKey });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.meta.page).toEqual({ limit: 50, nextCursor: null, hasMore: false });
    const ids: string[] = [];
    for (const name of ['dev', 'staging', 'prod']) ids.push((await call('POST', path, { token: ws.apiKey, body: { name } })).body.data.id);
    const page1 = await call('GET', `${path}?limit=2`, { token: ws.apiKey });
    const page2 = await call('GET', `${path}?limit=2&cursor=${encodeURIComponent(page1.body.meta.page.nextCursor)}`, { token: ws.apiKey });
    expect([...page1.body.data, ...page2.body.data].map((e: { id: string }) => e.id)).toEqual(ids.reverse());
    expect(page2.body.meta.page.hasMore).toBe(false);
    const projectsCursor = (await call('GET', '/api/v1/projects?limit=1', { token: ws.apiKey })).body.meta.page.nextCursor;
    const wrongList = await call('GET', `${path}?cursor=${encodeURIComponent(projectsCursor)}`, { token: ws.apiKey });
    expect(wrongList.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('finds an environment by project and environment slug, the same object as the list', async () => {
    const created = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'QA' } })).body
      .data;
    const found = await call('GET', `/api/v1/projects/by-slug/${project.slug}/environments/qa`, { token: ws.apiKey });
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual(created);
    expect((await call('GET', `/api/v1/projects/by-slug/${project.slug}/environments/nope`, { token: ws.apiKey })).status).toBe(404);
    expect((await call('GET', `/api/v1/projects/by-slug/nope/environments/qa`, { token: ws.apiKey })).status).toBe(404);
  });

  it('validates names at 0, 1, 120 and 121 characters and the body shape', async () => {
    const path = `/api/v1/projects/${project.id}/environments`;
    expect((await call('POST', path, { token: ws.apiKey, body: { name: 'e' } })).status).toBe(201);
    expect((await call('POST', path, { token: ws.apiKey, body: { name: 'e'.repeat(120) } })).status).toBe(201);
    expect((await call('POST', path, { token: ws.apiKey, body: { name: '' } })).body.error.message).toBe(
      'name: must be at least 1 character',
    );
    expect((await call('POST', path, { token: ws.apiKey, body: { name: 'e'.repeat(121) } })).body.error.message).toBe(
      'name: must be at most 120 characters',
    );
    expect((await call('POST', path, { token: ws.apiKey, body: { name: 'x', color: 'red' } })).body.error.message).toBe(
      'color: is not a known field',
    );
    expect((await call('POST', path, { token: ws.apiKey, rawBody: '{oops' })).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a malformed project id and answers NOT_FOUND for an unknown one', async () => {
    const malformed = await call('GET', '/api/v1/projects/not-an-id/environments', { token: ws.apiKey });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toBe('projectId: must be a proj_ id');
    const unknown = 'proj_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    expect((await call('GET', `/api/v1/projects/${unknown}/environments`, { token: ws.apiKey })).status).toBe(404);
    const create = await call('POST', `/api/v1/projects/${unknown}/environments`, { token: ws.apiKey, body: { name: 'x' } });
    expect(create.status).toBe(404);
    expect(create.body.error.code).toBe('NOT_FOUND');
  });

  it("answers NOT_FOUND for another workspace's project, whether listing or creating, and writes nothing", async () => {
    const other = await newWorkspace();
    const path = `/api/v1/projects/${project.id}/environments`;
    expect((await call('GET', path, { token: other.apiKey })).status).toBe(404);
    const create = await call('POST', path, { token: other.apiKey, body: { name: 'intruder' } });
    expect(create.status).toBe(404);
    const audit = await localStore().store.listAudit(other.workspaceId, { limit: 50 });
    expect(audit.items).toEqual([]);
    const mine = await call('GET', `${path}?limit=200`, { token: ws.apiKey });
    expect(mine.body.data.map((e: { name: string }) => e.name)).not.toContain('intruder');
    expect((await call('GET', `/api/v1/projects/by-slug/${project.slug}/environments/production`, { token: other.apiKey })).status).toBe(
      404,
    );
  });
});
