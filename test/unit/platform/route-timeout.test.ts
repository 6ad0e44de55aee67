import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeRouteGroupHandler } from '../../../shared/platform/http/handler.ts';
import { defineRoute } from '../../../shared/platform/http/route.ts';
import { principal as fakePrincipal } from '../support/fakes.ts';
import { apiEvent, lambdaContext } from '../../support/api-event.ts';

describe('a request that runs out of Lambda time', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After (worth a retry), not a 500', async () => {
    let stop: () => void = () => undefined;
    const routes = {
      'GET /slow': defineRoute({
        operationId: 'slow',
        summary: 'slow',
        response: z.unknown(),
        access: 'workspace',
        handler: () => new Promise((resolve) => (stop = () => resolve({ data: null }))),
      }),
    };
    const handle = makeRouteGroupHandler(routes, {
      authenticate: async () => ({ principal: fakePrincipal(), prefetched: new Map() }),
      timeoutEarlyInMillis: 950,
    });
    // 1 s left, the early-timeout margin 950 ms: middy answers for the handler 50 ms from now.
    const result = await handle(apiEvent('GET /slow', { token: 't' }), { ...lambdaContext(), getRemainingTimeInMillis: () => 1000 });
    stop();
    expect(result.statusCode).toBe(503);
    expect(result.headers).toMatchObject({ 'Retry-After': '1' });
    expect(JSON.parse(result.body!).error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'the request ran out of time; retry shortly' });
  });
});
