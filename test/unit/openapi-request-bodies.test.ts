import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { allRouteDefinitions } from '../../bin/openapi/routes.ts';
import type { Authenticator } from '../../shared/access/authenticate.ts';
import { API_KEY_AUTHORITY } from '../../shared/access/permissions.ts';
import type { Principal } from '../../shared/platform/principal.ts';
import { NotFoundError } from '../../shared/platform/errors.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import type { RouteDefinition } from '../../shared/platform/http/route.ts';
import { ID_PREFIXES, newId, type IdKind } from '../../shared/platform/ids.ts';
import { apiEvent, lambdaContext } from '../support/api-event.ts';

/**
 * The served document (docs/openapi.json, which test/unit/openapi.test.ts keeps equal to the generated one) against
 * the routes themselves: a request without a body goes through each route's own chain (routing, body reading,
 * authentication with its prefetch, validation) and is refused exactly when the document says a body is required.
 */

type Operation = { operationId: string; requestBody?: { required?: boolean } };
const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Every documented operation with a request body, by route key, and whether the document says it is required. */
const withBody = Object.entries(committed.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, operation]) => operation.requestBody)
    .map(([method, operation]) => ({ routeKey: `${method.toUpperCase()} ${path}`, required: operation.requestBody!.required === true })),
);

const principal: Principal = {
  workspaceId: newId('workspace'),
  accountId: newId('account'),
  kind: 'api_key',
  actorSub: newId('apiKey'),
  credentialId: newId('apiKey'),
  authority: API_KEY_AUTHORITY,
};

/**
 * Valid auth for every route: an API key (admin). The route's prefetch is not run: it asks the service for keys, and
 * the definitions here are built without services (nothing is read either way).
 */
const authenticate: Authenticator = async () => ({ principal, prefetched: new Map() });

/** Well-formed values a path parameter may take: an id of every kind and a slug. */
const CANDIDATES = [...(Object.keys(ID_PREFIXES) as IdKind[]).map((kind) => newId(kind)), 'payments-api'];

/** Path parameters the route's own schema accepts: the first combination of candidates that passes it. */
function validParams(routeKey: string, route: RouteDefinition): Record<string, string> | undefined {
  const names = [...routeKey.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  if (names.length === 0) return undefined;
  let combinations: Record<string, string>[] = [{}];
  for (const name of names) combinations = combinations.flatMap((chosen) => CANDIDATES.map((value) => ({ ...chosen, [name]: value })));
  const valid = combinations.find((params) => !route.params || z.safeParse(route.params, params).success);
  if (!valid) throw new Error(`no candidate path parameters pass the schema of ${routeKey}`);
  return valid;
}

/** Sends `routeKey` with valid path parameters and auth and no body; the handler stands in for the service. */
async function sendWithoutBody(routeKey: string, route: RouteDefinition) {
  const reached = vi.fn(async () => Promise.reject(new NotFoundError('the handler was reached')));
  const handle = makeRouteGroupHandler({ [routeKey]: { ...route, handler: reached } }, { authenticate, timeoutEarlyInMillis: 0 });
  const params = validParams(routeKey, route);
  const answer = await handle(apiEvent(routeKey, { token: 'sk_live_test', ...(params && { pathParameters: params }) }), lambdaContext());
  return {
    status: answer.statusCode,
    error: (JSON.parse(answer.body!) as { error: { code: string; message: string } | null }).error,
    reached,
  };
}

describe("the OpenAPI document's requestBody.required", () => {
  const routes = allRouteDefinitions();

  it('is documented for exactly the routes that take a body, and the rotation of a signing secret takes none', () => {
    // Assess: the loop below covers every route with a body; an empty rotation body means 24 hours (decisions.md)
    const takingBody = Object.entries(routes)
      .filter(([, route]) => route.body)
      .map(([key]) => key);
    expect(withBody.map(({ routeKey }) => routeKey).sort()).toEqual(takingBody.sort());
    expect(withBody).toContainEqual({ routeKey: 'POST /api/v1/webhooks/{id}/rotate-secret', required: false });
  });

  it.each(withBody)('matches what $routeKey does with a request without a body (required: $required)', async ({ routeKey, required }) => {
    // Prepare
    const route = routes[routeKey];
    expect(route, `${routeKey} is documented but not a route`).toBeDefined();
    // Act
    const { status, error, reached } = await sendWithoutBody(routeKey, route!);
    // Assess: a required body is refused by validation, naming the body; an optional one reaches the handler
    if (required) {
      expect({ status, code: error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(error?.message).toMatch(/^body: /);
      expect(reached).not.toHaveBeenCalled();
    } else {
      expect(error).toEqual({ code: 'NOT_FOUND', message: 'the handler was reached' });
      expect(status).toBe(404);
      expect(reached).toHaveBeenCalledOnce();
    }
  });
});
