import * as z from 'zod/mini';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type { Authenticator } from '../auth/authenticate.ts';
import { successResponse } from './envelope.ts';
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
  authenticate: Authenticator;
  /** middy's early-timeout margin; tests pass 0 so no timer outlives them. */
  timeoutEarlyInMillis?: number;
}

/**
 * One Lambda handler for a route group. API Gateway has matched the route, so dispatch is a lookup of
 * `event.routeKey`. The chain: request id and access log → error mapping → header normalisation → routing →
 * JSON body → authentication (with the route's prefetch) and permission → validation → the route's handler.
 */
export function makeRouteGroupHandler(routes: Readonly<Record<string, RouteDefinition>>, options: RouteGroupOptions) {
  const plugin = options.timeoutEarlyInMillis === undefined ? {} : { timeoutEarlyInMillis: options.timeoutEarlyInMillis };
  return middy<ApiEvent, ApiResult>(plugin)
    .use(requestContext())
    .use(errorMapper())
    .use(httpHeaderNormalizer())
    .use(routing(routes))
    .use(jsonBody())
    .use(authentication(options.authenticate))
    .use(validation())
    .handler(async (event: ApiEvent, context: Context): Promise<ApiResult> => {
      const state = (context as ApiContext).api;
      const route = state.route!;
      const output = await route.handler({
        ...state.input!,
        principal: state.principal!,
        prefetched: state.prefetched!,
        requestId: state.requestId,
        log: state.log,
      });
      // Only what the response schema names leaves: unknown fields are dropped here, whatever the service returned.
      return successResponse(state.requestId, route.status ?? 200, z.parse(route.response, output.data), output.page);
    });
}
