import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type { Authenticator } from './authentication.ts';
import { runInIdempotencyScope } from '../idempotency-scope.ts';
import { buildAnswer } from './build-answer.ts';
import { OutOfTimeError } from '../errors.ts';
import { recordedResponse, successResponse } from './envelope.ts';
import { idempotency, type IdempotencyDeps } from './idempotency.ts';
import {
  authentication,
  errorMapper,
  jsonBody,
  requestContext,
  routing,
  validation,
  type ApiContext,
  type ApiEvent,
  type ApiResult,
} from './middleware.ts';
import type { RouteDefinition } from './route.ts';

export interface RouteGroupOptions {
  /** Every group but the one of the public login route authenticates its callers. */
  authenticate?: Authenticator;
  /** Idempotency keys on the routes that change state; every API function passes them (shared/access/api-runtime.ts). */
  idempotency?: IdempotencyDeps;
  /** middy's early-timeout margin; tests pass 0 so no timer outlives them. */
  timeoutEarlyInMillis?: number;
}

/**
 * One Lambda handler for a route group. API Gateway has matched the route, so dispatch is a lookup of
 * `event.routeKey`. The chain: request id and access log → error mapping → header normalisation → routing →
 * JSON body → authentication (with the route's prefetch) and permission → validation → the route's handler.
 */
export function makeRouteGroupHandler(routes: Readonly<Record<string, RouteDefinition>>, options: RouteGroupOptions) {
  const plugin = {
    ...(options.timeoutEarlyInMillis !== undefined && { timeoutEarlyInMillis: options.timeoutEarlyInMillis }),
    // Out of time (a dependency too slow, or a pile-up of writers on one key) is worth a retry, not a 500.
    timeoutEarlyResponse: () => {
      throw new OutOfTimeError();
    },
  };
  const chain = middy<ApiEvent, ApiResult>(plugin)
    .use(requestContext())
    .use(errorMapper())
    .use(httpHeaderNormalizer())
    .use(routing(routes))
    .use(jsonBody())
    .use(authentication(options.authenticate))
    .use(validation());
  if (options.idempotency) chain.use(idempotency(options.idempotency));
  return chain.handler(async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const state = (context as ApiContext).api;
    if (state.replay) return state.replay;
    const route = state.route!;
    const input = {
      ...state.input!,
      // A public route has no principal (its handler does not read it).
      principal: state.principal!,
      prefetched: state.prefetched ?? new Map(),
      requestId: state.requestId,
      log: state.log,
      sourceIp: event.requestContext?.http?.sourceIp,
    };
    const claim = state.idempotency;
    const output = claim ? await runInIdempotencyScope(claim.scope, () => route.handler(input)) : await route.handler(input);
    // The answer recorded with the change is the answer given: a replay then repeats it byte for byte.
    const recorded = claim?.scope.recordedBody;
    if (recorded) return recordedResponse(state.requestId, route.status ?? 200, recorded);
    // Only what the response schema names leaves: unknown fields are dropped here, whatever the service returned.
    return successResponse(state.requestId, route.status ?? 200, buildAnswer(route.response, output.data), output.page);
  });
}
