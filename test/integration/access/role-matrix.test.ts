import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { ROUTE_GROUPS } from '../../../shared/platform/routes.ts';
import { call, localStore, newWorkspace, userToken, type ApiAnswer } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, storedDelivery } from '../../support/webhooks.ts';

/**
 * Every route × every kind of credential (decisions.md, "Roles of people", "Permissions of access keys",
 * "Credentials and permissions"), over the HTTP front of the local stack, from ONE table: each row names the route's
 * success status and the columns that may call it; every other column must get 403 FORBIDDEN.
 *
 * Columns: a person with role viewer, developer, admin (roles ['viewer', 'admin']: the strongest wins), the
 * workspace's API key, a machine token of an access key made without `permissions` (the default rules), and a
 * person with no recognised role (roles ['owner'] → JWT_DEFAULT_ROLE, viewer).
 *
 * Each cell that needs an object gets a fresh one, made with the API key, so that no cell sees another's effects:
 * a secret with two versions, an access key, a webhook endpoint, a webhook delivery. Deliveries are seeded as the
 * fan-out writes them and then marked failed (as delivery-log.test.ts does), so a granted retry answers 202 at once
 * instead of waiting through six scaled attempts. Endpoints subscribe only to `service.webhook_endpoint.disabled`,
 * which nothing here fires, so the matrix's secret writes queue no deliveries.
 */

const COLUMNS = ['viewer', 'developer', 'admin', 'apiKey', 'machine', 'noRole'] as const;
type Column = (typeof COLUMNS)[number];
/** The routes that take no credential: the API description and the login (test/integration/login-*.test.ts). */
// Routes that take no bearer token: the API description, the login, and the AWS API (SigV4 only; a bearer token is
// refused there, test/integration/aws/).
const PUBLIC_ROUTES = ['GET /api/v1/openapi.json', 'POST /api/v1/auth/login', 'POST /'] as const;
type RouteKey = Exclude<(typeof ROUTE_GROUPS)[keyof typeof ROUTE_GROUPS][number], (typeof PUBLIC_ROUTES)[number]>;

/** Who may call a route: every credential; whoever may act on secrets; the workspace's administrators. */
const EVERYONE: readonly Column[] = COLUMNS;
const SECRET_ACTORS: readonly Column[] = ['developer', 'admin', 'apiKey', 'machine'];
const ADMINS: readonly Column[] = ['admin', 'apiKey'];

/** The object a cell acts on, made fresh for it: its id and its key (a secret's) or name. */
type Made = { id: string; key: string };
type Fresh = 'secret' | 'deletedSecret' | 'accessKey' | 'endpoint' | 'delivery' | 'changeRequest' | 'sync' | 'auditStream';
type Row = { ok: 200 | 201 | 202; may: readonly Column[]; fresh?: Fresh; send: (token: string, made: Made) => Promise<ApiAnswer> };

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let receiver: HttpsReceiver;
let project: { id: string; slug: string };
let environment: { id: string; slug: string };
/** An environment of its own for the review-policy rows: a policy there blocks no other row's secret writes. */
let reviewed: { id: string };
/** The environment the syncs of the matrix sync: empty, so their pushes reveal and audit nothing. */
let synced: { id: string };
/** An endpoint the read-only webhook cells look at, and the one seeded deliveries belong to. */
let endpointId: string;
const tokens = {} as Record<Column, string>;

const secretsOf = (envId: string) => `/api/v1/environments/${envId}/secrets`;

/** The table: one row per route of shared/platform/routes.ts but the public ones (which take no credential). */
const MATRIX: Record<RouteKey, Row> = {
  'GET /api/v1/projects': { ok: 200, may: EVERYONE, send: (token) => call('GET', '/api/v1/projects', { token }) },
  'POST /api/v1/projects': { ok: 201, may: ADMINS, send: (token) => call('POST', '/api/v1/projects', { token, body: { name: 'made' } }) },
  'GET /api/v1/projects/{projectId}': { ok: 200, may: EVERYONE, send: (token) => call('GET', `/api/v1/projects/${project.id}`, { token }) },
  'GET /api/v1/projects/by-slug/{projectSlug}': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `/api/v1/projects/by-slug/${project.slug}`, { token }),
  },
  'GET /api/v1/projects/{projectId}/environments': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `/api/v1/projects/${project.id}/environments`, { token }),
  },
  'POST /api/v1/projects/{projectId}/environments': {
    ok: 201,
    may: ADMINS,
    send: (token) => call('POST', `/api/v1/projects/${project.id}/environments`, { token, body: { name: 'made' } }),
  },
  'GET /api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `/api/v1/projects/by-slug/${project.slug}/environments/${environment.slug}`, { token }),
  },
  'PUT /api/v1/environments/{envId}/review-policy': {
    ok: 200,
    may: ADMINS,
    send: (token) => call('PUT', `/api/v1/environments/${reviewed.id}/review-policy`, { token, body: { requiredApprovals: 2 } }),
  },
  'GET /api/v1/environments/{envId}/review-policy': {
    ok: 200,
    may: ADMINS,
    send: (token) => call('GET', `/api/v1/environments/${reviewed.id}/review-policy`, { token }),
  },
  'DELETE /api/v1/environments/{envId}/review-policy': {
    ok: 200,
    may: ADMINS,
    send: async (token) => {
      const policy = { requiredApprovals: 1 };
      expect((await call('PUT', `/api/v1/environments/${reviewed.id}/review-policy`, { token: ws.apiKey, body: policy })).status).toBe(200);
      return call('DELETE', `/api/v1/environments/${reviewed.id}/review-policy`, { token });
    },
  },
  'GET /api/v1/environments/{envId}': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `/api/v1/environments/${environment.id}`, { token }),
  },
  'GET /api/v1/environments/{envId}/secrets': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', secretsOf(environment.id), { token }),
  },
  'PUT /api/v1/environments/{envId}/secrets': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('PUT', secretsOf(environment.id), { token, body: { key: s.key, value: 'three' } }),
  },
  'POST /api/v1/secrets/{secretId}/reveal': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('POST', `/api/v1/secrets/${s.id}/reveal`, { token }),
  },
  'POST /api/v1/reveal': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('POST', '/api/v1/reveal', { token, body: { path: `${project.slug}/${environment.slug}/${s.key}` } }),
  },
  'POST /api/v1/environments/{envId}/secrets/reveal': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('POST', `${secretsOf(environment.id)}/reveal`, { token, body: { keys: [s.key] } }),
  },
  'GET /api/v1/secrets/{secretId}': {
    ok: 200,
    may: EVERYONE,
    fresh: 'secret',
    send: (token, s) => call('GET', `/api/v1/secrets/${s.id}`, { token }),
  },
  'GET /api/v1/secrets/{secretId}/versions': {
    ok: 200,
    may: EVERYONE,
    fresh: 'secret',
    send: (token, s) => call('GET', `/api/v1/secrets/${s.id}/versions`, { token }),
  },
  'POST /api/v1/secrets/{secretId}/rollback': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('POST', `/api/v1/secrets/${s.id}/rollback`, { token, body: { version: 1 } }),
  },
  'PUT /api/v1/secrets/{secretId}/rotation': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('PUT', `/api/v1/secrets/${s.id}/rotation`, { token, body: { function: null, schedule: 'rate(30 days)' } }),
  },
  'DELETE /api/v1/secrets/{secretId}/rotation': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('DELETE', `/api/v1/secrets/${s.id}/rotation`, { token }),
  },
  'POST /api/v1/secrets/{secretId}/rotate': {
    ok: 202,
    may: SECRET_ACTORS,
    fresh: 'secret',
    // Configured by the same credential first: a caller that may not write is refused at both.
    send: async (token, s) => {
      await call('PUT', `/api/v1/secrets/${s.id}/rotation`, { token, body: { function: null, schedule: 'rate(30 days)' } });
      return call('POST', `/api/v1/secrets/${s.id}/rotate`, { token });
    },
  },
  'DELETE /api/v1/secrets/{secretId}': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'secret',
    send: (token, s) => call('DELETE', `/api/v1/secrets/${s.id}`, { token }),
  },
  'GET /api/v1/search/secrets': {
    ok: 200,
    may: EVERYONE,
    fresh: 'secret',
    send: (token, s) => call('GET', `/api/v1/search/secrets?q=${s.key}`, { token }),
  },
  'GET /api/v1/environments/{envId}/secrets/deleted': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `${secretsOf(environment.id)}/deleted`, { token }),
  },
  'POST /api/v1/secrets/{secretId}/restore': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'deletedSecret',
    send: (token, s) => call('POST', `/api/v1/secrets/${s.id}/restore`, { token }),
  },
  'GET /api/v1/access-keys': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/access-keys', { token }) },
  'POST /api/v1/access-keys': {
    ok: 201,
    may: ADMINS,
    send: (token) => call('POST', '/api/v1/access-keys', { token, body: { name: 'made' } }),
  },
  'GET /api/v1/access-keys/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'accessKey',
    send: (token, k) => call('GET', `/api/v1/access-keys/${k.id}`, { token }),
  },
  'PATCH /api/v1/access-keys/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'accessKey',
    send: (token, k) => call('PATCH', `/api/v1/access-keys/${k.id}`, { token, body: { name: 'renamed' } }),
  },
  'POST /api/v1/access-keys/{id}/revoke': {
    ok: 200,
    may: ADMINS,
    fresh: 'accessKey',
    send: (token, k) => call('POST', `/api/v1/access-keys/${k.id}/revoke`, { token }),
  },
  'GET /api/v1/webhooks': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/webhooks', { token }) },
  'POST /api/v1/webhooks': {
    ok: 201,
    may: ADMINS,
    send: (token) =>
      call('POST', '/api/v1/webhooks', { token, body: { url: `${receiver.origin}/made`, events: ['service.webhook_endpoint.disabled'] } }),
  },
  'GET /api/v1/webhooks/{id}': {
    ok: 200,
    may: ADMINS,
    send: (token) => call('GET', `/api/v1/webhooks/${endpointId}`, { token }),
  },
  'PATCH /api/v1/webhooks/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'endpoint',
    send: (token, e) => call('PATCH', `/api/v1/webhooks/${e.id}`, { token, body: { description: 'patched' } }),
  },
  'DELETE /api/v1/webhooks/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'endpoint',
    send: (token, e) => call('DELETE', `/api/v1/webhooks/${e.id}`, { token }),
  },
  'GET /api/v1/webhooks/{id}/deliveries': {
    ok: 200,
    may: ADMINS,
    send: (token) => call('GET', `/api/v1/webhooks/${endpointId}/deliveries`, { token }),
  },
  'GET /api/v1/webhooks/event-types': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/webhooks/event-types', { token }) },
  'GET /api/v1/webhook-deliveries': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/webhook-deliveries', { token }) },
  'GET /api/v1/webhook-deliveries/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'delivery',
    send: (token, d) => call('GET', `/api/v1/webhook-deliveries/${d.id}`, { token }),
  },
  'POST /api/v1/webhooks/{id}/test': {
    ok: 202,
    may: ADMINS,
    send: (token) => call('POST', `/api/v1/webhooks/${endpointId}/test`, { token }),
  },
  'POST /api/v1/webhooks/{id}/recover': {
    ok: 202,
    may: ADMINS,
    send: (token) =>
      call('POST', `/api/v1/webhooks/${endpointId}/recover`, { token, body: { since: new Date(Date.now() - 3_600_000).toISOString() } }),
  },
  'POST /api/v1/webhooks/{id}/rotate-secret': {
    ok: 200,
    may: ADMINS,
    fresh: 'endpoint',
    send: (token, e) => call('POST', `/api/v1/webhooks/${e.id}/rotate-secret`, { token, body: { expireCurrentInHours: 1 } }),
  },
  'GET /api/v1/webhooks/{id}/stats': {
    ok: 200,
    may: ADMINS,
    send: (token) => call('GET', `/api/v1/webhooks/${endpointId}/stats`, { token }),
  },
  'POST /api/v1/webhook-deliveries/{id}/retry': {
    ok: 202,
    may: ADMINS,
    fresh: 'delivery',
    send: (token, d) => call('POST', `/api/v1/webhook-deliveries/${d.id}/retry`, { token }),
  },
  'GET /api/v1/audit': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/audit', { token }) },
  // The digests cover the log, so admins only; their public key is the deployment's, any credential may read it.
  'GET /api/v1/audit/digests': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/audit/digests', { token }) },
  'GET /api/v1/audit/public-key': { ok: 200, may: EVERYONE, send: (token) => call('GET', '/api/v1/audit/public-key', { token }) },
  // Change requests (decisions.md v1.4). Fresh ones are opened by a developer outside the columns, so no column is
  // their author: reviews are for people (admin, developer) and API keys; merge only for the author or a reviewer
  // (no column here, and the request is not approved either); close for the author or an admin.
  'POST /api/v1/change-requests': {
    ok: 201,
    may: SECRET_ACTORS,
    send: (token) =>
      call('POST', '/api/v1/change-requests', {
        token,
        body: { environmentId: environment.id, title: 't', changes: [{ key: 'CR_KEY', value: 'v' }] },
      }),
  },
  'GET /api/v1/change-requests': {
    ok: 200,
    may: EVERYONE,
    send: (token) => call('GET', `/api/v1/change-requests?environmentId=${environment.id}`, { token }),
  },
  'GET /api/v1/change-requests/{id}': {
    ok: 200,
    may: EVERYONE,
    fresh: 'changeRequest',
    send: (token, r) => call('GET', `/api/v1/change-requests/${r.id}`, { token }),
  },
  'POST /api/v1/change-requests/{id}/changes/{key}/reveal': {
    ok: 200,
    may: SECRET_ACTORS,
    fresh: 'changeRequest',
    send: (token, r) => call('POST', `/api/v1/change-requests/${r.id}/changes/${r.key}/reveal`, { token }),
  },
  'POST /api/v1/change-requests/{id}/reviews': {
    ok: 200,
    may: ['developer', 'admin', 'apiKey'],
    fresh: 'changeRequest',
    send: (token, r) => call('POST', `/api/v1/change-requests/${r.id}/reviews`, { token, body: { decision: 'approve' } }),
  },
  'POST /api/v1/change-requests/{id}/merge': {
    ok: 200,
    may: [],
    fresh: 'changeRequest',
    send: (token, r) => call('POST', `/api/v1/change-requests/${r.id}/merge`, { token }),
  },
  'POST /api/v1/change-requests/{id}/close': {
    ok: 200,
    may: ADMINS,
    fresh: 'changeRequest',
    send: (token, r) => call('POST', `/api/v1/change-requests/${r.id}/close`, { token }),
  },
  // Syncs: the workspace's administration (decisions.md v1.4, "Syncs").
  'POST /api/v1/syncs': {
    ok: 201,
    may: ADMINS,
    send: (token) => call('POST', '/api/v1/syncs', { token, body: syncBody() }),
  },
  'GET /api/v1/syncs': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/syncs', { token }) },
  'GET /api/v1/syncs/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'sync',
    send: (token, s) => call('GET', `/api/v1/syncs/${s.id}`, { token }),
  },
  'PATCH /api/v1/syncs/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'sync',
    send: (token, s) => call('PATCH', `/api/v1/syncs/${s.id}`, { token, body: { prune: true } }),
  },
  'DELETE /api/v1/syncs/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'sync',
    send: (token, s) => call('DELETE', `/api/v1/syncs/${s.id}`, { token }),
  },
  'POST /api/v1/syncs/{id}/run': {
    ok: 202,
    may: ADMINS,
    fresh: 'sync',
    send: (token, s) => call('POST', `/api/v1/syncs/${s.id}/run`, { token }),
  },
  // Audit streams: the workspace's administration (decisions.md v1.4, "Audit streams and tamper evidence").
  'POST /api/v1/audit-streams': {
    ok: 201,
    may: ADMINS,
    send: (token) => call('POST', '/api/v1/audit-streams', { token, body: streamBody() }),
  },
  'GET /api/v1/audit-streams': { ok: 200, may: ADMINS, send: (token) => call('GET', '/api/v1/audit-streams', { token }) },
  'GET /api/v1/audit-streams/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'auditStream',
    send: (token, s) => call('GET', `/api/v1/audit-streams/${s.id}`, { token }),
  },
  'PATCH /api/v1/audit-streams/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'auditStream',
    send: (token, s) => call('PATCH', `/api/v1/audit-streams/${s.id}`, { token, body: { status: 'disabled' } }),
  },
  'DELETE /api/v1/audit-streams/{id}': {
    ok: 200,
    may: ADMINS,
    fresh: 'auditStream',
    send: (token, s) => call('DELETE', `/api/v1/audit-streams/${s.id}`, { token }),
  },
  // The matrix's stream is Datadog's: no network here, so the test answers 200 with delivered false.
  'POST /api/v1/audit-streams/{id}/test': {
    ok: 200,
    may: ADMINS,
    fresh: 'auditStream',
    send: (token, s) => call('POST', `/api/v1/audit-streams/${s.id}/test`, { token }),
  },
};

/** A Datadog stream (no url, so no DNS lookup; nothing delivers yet). */
const streamBody = () => ({ type: 'datadog', site: 'datadoghq.eu', apiKey: '0123456789abcdef0123456789abcdef' });

/**
 * A sync to Parameter Store of an empty environment. The local stack's sync worker runs every sync it is told of: a
 * sync of `environment` revealed its hundreds of secrets at each create and run, and those audit entries, newer than
 * a refusal's, pushed the refusal's entry past the read budget of a filtered audit page (CI of c0e40f9).
 */
const syncBody = () => ({ environmentId: synced.id, destination: { type: 'aws-ssm', region: 'us-east-1', pathPrefix: '/matrix/' } });

let made = 0;
/** Makes a cell's object with the API key; each has a name no other cell uses. */
const FRESH: Record<Fresh, () => Promise<Made>> = {
  secret: async () => {
    const key = `MATRIX_${++made}`;
    await call('PUT', secretsOf(environment.id), { token: ws.apiKey, body: { key, value: 'one' } });
    const second = await call('PUT', secretsOf(environment.id), { token: ws.apiKey, body: { key, value: 'two' } });
    expect(second.body.data.version).toBe(2);
    return { id: second.body.data.id, key };
  },
  deletedSecret: async () => {
    const secret = await FRESH.secret();
    expect((await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey })).status).toBe(200);
    return secret;
  },
  accessKey: async () => {
    const name = `matrix-${++made}`;
    const created = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name } });
    expect(created.status).toBe(201);
    return { id: created.body.data.id, key: name };
  },
  endpoint: async () => {
    const name = `matrix-${++made}`;
    return { id: (await registerEndpoint(ws.apiKey, `${receiver.origin}/${name}`, ['service.webhook_endpoint.disabled'])).id, key: name };
  },
  delivery: async () => {
    const { store } = localStore();
    const delivery = storedDelivery(endpointId, ++made);
    expect(await store.createDelivery(ws.workspaceId, delivery, Date.now())).toBe(true);
    expect(await store.failPending(ws.workspaceId, delivery.id, 'seeded as failed', new Date().toISOString())).toBeDefined();
    return { id: delivery.id, key: delivery.eventType };
  },
  changeRequest: async () => {
    const key = `MATRIX_${++made}`;
    const body = { environmentId: environment.id, title: 'matrix', changes: [{ key, value: 'proposed' }] };
    const opened = await call('POST', '/api/v1/change-requests', { token: await person('developer'), body });
    expect(opened.status).toBe(201);
    return { id: opened.body.data.id, key };
  },
  auditStream: async () => {
    // At most 10 streams per workspace, and 18 cells want one: each cell's stream replaces those before it.
    const listed = await call('GET', '/api/v1/audit-streams?limit=50', { token: ws.apiKey });
    for (const stream of listed.body.data as { id: string }[])
      await call('DELETE', `/api/v1/audit-streams/${stream.id}`, { token: ws.apiKey });
    const created = await call('POST', '/api/v1/audit-streams', { token: ws.apiKey, body: streamBody() });
    expect(created.status).toBe(201);
    return { id: created.body.data.id, key: '' };
  },
  sync: async () => {
    const created = await call('POST', '/api/v1/syncs', { token: ws.apiKey, body: syncBody() });
    expect(created.status).toBe(201);
    return { id: created.body.data.id, key: '' };
  },
};

/** A person's access token for this workspace with the given `roles` claim. */
const person = (roles: string | string[]) => userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles });

beforeAll(async () => {
  ws = await newWorkspace();
  receiver = await startReceiver();
  ({ project, environment } = await newEnvironment(ws.apiKey, { project: 'matrix', environment: 'prod' }));
  reviewed = (await newEnvironment(ws.apiKey, { project: 'matrix', environment: 'reviewed' })).environment;
  synced = (await newEnvironment(ws.apiKey, { project: 'matrix', environment: 'synced' })).environment;
  endpointId = (await FRESH.endpoint()).id;
  const machine = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'default rules' } });
  expect(machine.status).toBe(201);
  Object.assign(tokens, {
    viewer: await person('viewer'),
    developer: await person('developer'),
    admin: await person(['viewer', 'admin']),
    apiKey: ws.apiKey,
    machine: machine.body.data.token,
    noRole: await person(['owner']),
  } satisfies Record<Column, string>);
});
afterAll(() => receiver.close());

describe('role × route matrix', () => {
  it('has one row for every route but the API description', () => {
    const routes = Object.values(ROUTE_GROUPS)
      .flat()
      .filter((route) => !(PUBLIC_ROUTES as readonly string[]).includes(route));
    expect(Object.keys(MATRIX).sort()).toEqual([...routes].sort());
  });

  describe.each(Object.entries(MATRIX))('%s', (_route, row) => {
    it.each(COLUMNS)('%s', async (column) => {
      // Prepare
      const target = row.fresh ? await FRESH[row.fresh]() : { id: '', key: '' };
      // Act
      const answer = await row.send(tokens[column], target);
      // Assess
      const expected = row.may.includes(column) ? [row.ok, null] : [403, 'FORBIDDEN'];
      expect([answer.status, answer.body.error?.code ?? null], JSON.stringify(answer.body)).toEqual(expected);
      if (answer.status === 403)
        expect(answer.body).toMatchObject({ data: null, error: { code: 'FORBIDDEN', message: expect.any(String) } });
    });
  });
});

describe('refusals of people on secrets', () => {
  it.each([
    ['viewer', 'reveal', (id: string) => call('POST', `/api/v1/secrets/${id}/reveal`, { token: tokens.viewer })],
    ['viewer', 'write', (id: string) => call('POST', `/api/v1/secrets/${id}/rollback`, { token: tokens.viewer, body: { version: 1 } })],
    ['noRole', 'delete', (id: string) => call('DELETE', `/api/v1/secrets/${id}`, { token: tokens.noRole })],
  ] as const)('audits a FORBIDDEN of the %s (%s) as access.denied with the secret it aimed at', async (_column, action, refuse) => {
    // Prepare
    const secret = await FRESH.secret();
    // Act
    const refused = await refuse(secret.id);
    const audit = await call('GET', `/api/v1/audit?action=access.denied&target=${secret.id}`, { token: ws.apiKey });
    // Assess
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      action: 'access.denied',
      target: secret.id,
      actorSub: expect.stringMatching(/^usr_/),
      metadata: { attemptedAction: action, key: secret.key, projectId: project.id, environmentId: environment.id, credentialKind: 'user' },
    });
  });
});
