import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { call, newWorkspace } from '../../support/api.ts';

/**
 * Projects and environments by id (decisions.md, "Lookups by id"): the same object as the list item (an environment
 * with its project's slug added), and NOT_FOUND for whatever the caller may not read, worded as for an unknown id.
 */

type Project = { id: string; slug: string };
type Environment = { id: string; projectId: string; slug: string };

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
let payments: Project;
let billing: Project;
let prod: Environment;
let dev: Environment;
/** A machine token that may read `payments/prod` only. */
let scopedToken: string;

const created = async (path: string, name: string) => {
  const answer = await call('POST', path, { token: ws.apiKey, body: { name } });
  expect(answer.status).toBe(201);
  return answer.body.data;
};
const listed = async (path: string, id: string) =>
  (await call('GET', `${path}?limit=200`, { token: ws.apiKey })).body.data.find((item: { id: string }) => item.id === id);
const code = async (path: string, token: string) => {
  const answer = await call('GET', path, { token });
  return [answer.status, answer.body.error?.code ?? null];
};

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace(), newWorkspace()]);
  payments = await created('/api/v1/projects', 'Payments');
  billing = await created('/api/v1/projects', 'Billing');
  prod = await created(`/api/v1/projects/${payments.id}/environments`, 'Prod');
  dev = await created(`/api/v1/projects/${payments.id}/environments`, 'Dev');
  const key = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: { name: 'prod reader', permissions: [{ projects: ['payments'], environments: ['prod'], actions: ['read'] }] },
  });
  expect(key.status).toBe(201);
  scopedToken = key.body.data.token;
});

describe('GET /api/v1/projects/{projectId}', () => {
  it('answers the same object as the list item', async () => {
    // Act
    const found = await call('GET', `/api/v1/projects/${payments.id}`, { token: ws.apiKey });
    // Assess
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual(await listed('/api/v1/projects', payments.id));
  });

  it("is NOT_FOUND for another workspace's project and for an unknown id", async () => {
    expect(await code(`/api/v1/projects/${payments.id}`, other.apiKey)).toEqual([404, 'NOT_FOUND']);
    expect(await code(`/api/v1/projects/${newId('project')}`, ws.apiKey)).toEqual([404, 'NOT_FOUND']);
  });

  it("is NOT_FOUND for a project a scoped key's rules do not reach, found for one they do", async () => {
    expect(await code(`/api/v1/projects/${billing.id}`, scopedToken)).toEqual([404, 'NOT_FOUND']);
    expect((await call('GET', `/api/v1/projects/${payments.id}`, { token: scopedToken })).body.data).toEqual(
      await listed('/api/v1/projects', payments.id),
    );
  });
});

describe('GET /api/v1/environments/{envId}', () => {
  it("answers its project's list item plus projectSlug, no field more", async () => {
    // Act
    const found = await call('GET', `/api/v1/environments/${prod.id}`, { token: ws.apiKey });
    // Assess
    expect(found.status).toBe(200);
    const item = await listed(`/api/v1/projects/${payments.id}/environments`, prod.id);
    expect(found.body.data).toEqual({ ...item, projectSlug: payments.slug });
  });

  it("is NOT_FOUND for another workspace's environment and for an unknown id", async () => {
    expect(await code(`/api/v1/environments/${prod.id}`, other.apiKey)).toEqual([404, 'NOT_FOUND']);
    expect(await code(`/api/v1/environments/${newId('environment')}`, ws.apiKey)).toEqual([404, 'NOT_FOUND']);
  });

  it("is NOT_FOUND for an environment a scoped key's rules do not reach, found for one they do", async () => {
    expect(await code(`/api/v1/environments/${dev.id}`, scopedToken)).toEqual([404, 'NOT_FOUND']);
    const found = await call('GET', `/api/v1/environments/${prod.id}`, { token: scopedToken });
    expect(found.body.data).toEqual({
      ...(await listed(`/api/v1/projects/${payments.id}/environments`, prod.id)),
      projectSlug: 'payments',
    });
  });

  it('refuses an id of another kind as VALIDATION_ERROR', async () => {
    expect(await code(`/api/v1/environments/${payments.id}`, ws.apiKey)).toEqual([400, 'VALIDATION_ERROR']);
  });
});
