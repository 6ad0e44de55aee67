// The workspace the CPU bench's children measure against, made through the real handlers in their own process.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { API_HEADERS, apiEvent, lambdaContext } from './cpu-events.ts';
import { invoke, type Handler } from './cpu-passes.ts';

/**
 * A workspace and its API key, a project "Bench" with an environment "prod" of `listSize` secrets, the first of
 * which (DATABASE_URL) has two versions. Made as the admin CLI and a client would: the operator's MAC keys first,
 * then the workspace, then the API's routes with the API key. Answers the route groups' handlers and a caller of
 * any route with any token.
 */
export async function seedWorkspace(listSize: number) {
  const [{ handler: secrets }, { handler: projects }, { handler: environments }] = await Promise.all([
    import('../functions/secrets/handler.ts'),
    import('../functions/projects/handler.ts'),
    import('../functions/environments/handler.ts'),
  ]);
  const { runtime } = await import('../shared/platform/runtime.ts');
  const { makeWorkspaceStore } = await import('../shared/workspaces/index.ts');
  const { makeWorkspaceAdminService } = await import('../shared/workspaces/workspace-wiring.ts');
  const { ensureOperatorMacs } = await import('../shared/platform/crypto/mac-key.ts');
  const { makeMacKeyStore } = await import('../shared/platform/store/mac-key-store.ts');
  const { keyProviderFromConfig } = await import('../shared/platform/crypto/key-provider-from-config.ts');
  const { db, clock, config } = runtime();
  // The service MAC key, as the admin CLI makes it before the first token.
  const macs = await ensureOperatorMacs(makeMacKeyStore(db), keyProviderFromConfig(config));
  const admin = makeWorkspaceAdminService({ store: makeWorkspaceStore(db), clock, operator: 'bench:cpu', macs: async () => macs });
  const { apiKey } = await admin.createWorkspace({ name: 'CPU bench', allowlisted: true });
  /** An event with a JSON body, as a client sends it. */
  const withBody = (token: string, value: unknown): Partial<APIGatewayProxyEventV2> => ({
    body: JSON.stringify(value),
    headers: { ...API_HEADERS(token), 'content-type': 'application/json' },
  });
  /** Calls a route and answers its `data`. */
  const call = async (handler: Handler, routeKey: string, extra: Partial<APIGatewayProxyEventV2>, expected = 200, token = apiKey) =>
    JSON.parse((await invoke(handler, apiEvent(routeKey, token, extra), lambdaContext(), expected)).body!).data;
  const project = await call(projects as Handler, 'POST /api/v1/projects', withBody(apiKey, { name: 'Bench' }), 201);
  const environment = await call(
    environments as Handler,
    'POST /api/v1/projects/{projectId}/environments',
    { pathParameters: { projectId: project.id }, ...withBody(apiKey, { name: 'prod' }) },
    201,
  );
  const put = (key: string, value: string) =>
    call(secrets as Handler, 'PUT /api/v1/environments/{envId}/secrets', {
      pathParameters: { envId: environment.id },
      ...withBody(apiKey, { key, value }),
    });
  const secret = await put('DATABASE_URL', 'postgres://bench');
  await put('DATABASE_URL', 'postgres://bench-2');
  for (let i = 1; i < listSize; i++) await put(`SERVICE_SECRET_${i}`, `value-${i}-${'x'.repeat(40)}`);
  return {
    handler: secrets as Handler,
    doc: db.doc,
    apiKey,
    project: project as { id: string; slug: string },
    environment: environment as { id: string; slug: string },
    secret: secret as { id: string },
    withBody,
    call,
  };
}
