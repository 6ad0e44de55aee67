import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { makeAuthenticator } from '../../../shared/access/authenticate.ts';
import { makeAccessKeyService } from '../../../shared/access/access-key-service.ts';
import { observeAwsCalls, type AwsCallEvent } from '../../../bin/local/instrumentation.ts';
import { makeRouteGroupHandler } from '../../../shared/platform/http/handler.ts';
import { systemClock } from '../../../shared/platform/clock.ts';
import { makeProjectService } from '../../../shared/workspaces/project-service.ts';
import { makeReviewPolicies } from '../../../shared/workspaces/review-policies.ts';
import { makeReviewPolicyStore } from '../../../shared/workspaces/review-policy-store.ts';
import { makeWebhookService } from '../../../shared/webhooks/endpoints/webhook-service.ts';
import { makeProjectRoutes } from '../../../functions/projects/routes.ts';
import { makeEnvironmentRoutes } from '../../../functions/environments/routes.ts';
import { makeAccessKeyRoutes } from '../../../functions/access-keys/routes.ts';
import { makeWebhookRoutes } from '../../../functions/webhooks/routes.ts';
import { call, localStore, newWorkspace, stackMacs } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver } from '../../support/webhooks.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { apiEvent, lambdaContext } from '../../support/api-event.ts';

/**
 * What a lookup by id costs (decisions.md, "Lookups by id": one request per object): the object is read ahead in the
 * credential's own BatchGetItem, so the whole request is one DynamoDB request, by every kind of credential that
 * may make it, and an unknown id costs no more. Counted by the SDK middleware around the real route-group handlers
 * over the local stack's table, as aws-call-budgets.test.ts counts the secrets routes.
 */
const context = lambdaContext();

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let receiver: HttpsReceiver;
let ids: { project: string; environment: string; accessKey: string; endpoint: string };
let machineToken: string;
let handlers: Record<'projects' | 'environments' | 'accessKeys' | 'webhooks', ReturnType<typeof makeRouteGroupHandler>>;
const events: AwsCallEvent[] = [];
let stop: () => void;

beforeAll(async () => {
  ws = await newWorkspace();
  receiver = await startReceiver();
  const { project, environment } = await newEnvironment(ws.apiKey, { project: 'budget', environment: 'prod' });
  const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'reader' } })).body.data;
  machineToken = key.token;
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/budget`, ['service.webhook_endpoint.disabled']);
  ids = { project: project.id, environment: environment.id, accessKey: key.id, endpoint: endpoint.id };
  const { store, doc, tableName } = localStore();
  const clock = systemClock;
  const options = { authenticate: makeAuthenticator({ store, clock, macs: stackMacs }), timeoutEarlyInMillis: 0 };
  const projects = {
    ...makeProjectService({ store, clock }),
    ...makeReviewPolicies({ store: { ...store, ...makeReviewPolicyStore({ doc, tableName }) }, clock }),
  };
  const unused = async () => {
    throw new Error('not used by a lookup');
  };
  handlers = {
    projects: makeRouteGroupHandler(makeProjectRoutes(projects), options),
    environments: makeRouteGroupHandler(makeEnvironmentRoutes(projects), options),
    accessKeys: makeRouteGroupHandler(makeAccessKeyRoutes(makeAccessKeyService({ store, clock, macs: stackMacs })), options),
    webhooks: makeRouteGroupHandler(
      makeWebhookRoutes(makeWebhookService({ store, clock, cipher: {} as never, checkUrl: unused })),
      options,
    ),
  };
  stop = observeAwsCalls((e) => events.push(e));
});
afterAll(() => {
  stop();
  return receiver.close();
});

/** The route's answer and the DynamoDB operations it sent. */
async function measure(handler: ReturnType<typeof makeRouteGroupHandler>, e: APIGatewayProxyEventV2) {
  events.length = 0;
  const result = await handler(e, context);
  return {
    status: result.statusCode,
    operations: events.filter((x) => x.service === 'DynamoDB').map((x) => x.operation),
  };
}

describe('DynamoDB requests of a lookup by id', () => {
  /** Each lookup's route key and path parameters (the ids exist only once beforeAll has run). */
  const LOOKUPS = {
    projects: () => ['GET /api/v1/projects/{projectId}', { projectId: ids.project }],
    environments: () => ['GET /api/v1/environments/{envId}', { envId: ids.environment }],
    accessKeys: () => ['GET /api/v1/access-keys/{id}', { id: ids.accessKey }],
    webhooks: () => ['GET /api/v1/webhooks/{id}', { id: ids.endpoint }],
  } satisfies Record<keyof typeof handlers, () => [string, Record<string, string>]>;

  it.each(Object.keys(LOOKUPS) as (keyof typeof LOOKUPS)[])(
    '%s: one BatchGetItem, the credential and the object together; the same for an unknown id',
    async (group) => {
      // Prepare
      const [routeKey, pathParameters] = LOOKUPS[group]();
      // An id of the same kind that names nothing: its last characters changed.
      const unknown = Object.fromEntries(Object.entries(pathParameters).map(([name, id]) => [name, `${id.slice(0, -6)}ZZZZZZ`]));
      // Act
      const found = await measure(handlers[group], apiEvent(routeKey, { token: ws.apiKey, pathParameters }));
      const missing = await measure(handlers[group], apiEvent(routeKey, { token: ws.apiKey, pathParameters: unknown }));
      // Assess
      expect(found).toEqual({ status: 200, operations: ['BatchGetItem'] });
      expect(missing).toEqual({ status: 404, operations: ['BatchGetItem'] });
    },
  );

  it('a machine token reads a project and an environment in one request too', async () => {
    // Prepare: a token's first request records its use (a write of authentication's, throttled to one a while).
    const first = apiEvent('GET /api/v1/projects/{projectId}', { token: machineToken, pathParameters: { projectId: ids.project } });
    expect((await measure(handlers.projects, first)).status).toBe(200);
    // Act
    const project = await measure(
      handlers.projects,
      apiEvent('GET /api/v1/projects/{projectId}', { token: machineToken, pathParameters: { projectId: ids.project } }),
    );
    const environment = await measure(
      handlers.environments,
      apiEvent('GET /api/v1/environments/{envId}', { token: machineToken, pathParameters: { envId: ids.environment } }),
    );
    // Assess
    expect([project.status, environment.status]).toEqual([200, 200]);
    expect([project.operations, environment.operations]).toEqual([['BatchGetItem'], ['BatchGetItem']]);
  });
});
