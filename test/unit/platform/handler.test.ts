import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Principal } from '../../../shared/platform/principal.ts';
import { AuthRequiredError, ForbiddenError, NotFoundError, RateLimitedError } from '../../../shared/platform/errors.ts';
import type { RouteCall } from '../../../shared/platform/http/authentication.ts';
import { makeRouteGroupHandler } from '../../../shared/platform/http/handler.ts';
import { defineRoute, lazyRoutes } from '../../../shared/platform/http/route.ts';
import { makeEnvironmentRoutes } from '../../../functions/environments/routes.ts';
import { makeProjectRoutes } from '../../../functions/projects/routes.ts';
import { makeSecretRoutes } from '../../../functions/secrets/routes.ts';
import { makeAuditRoutes } from '../../../functions/audit/routes.ts';
import { makeAuditService } from '../../../shared/audit/audit-service.ts';
import type { SecretService } from '../../../shared/secrets/secret-service.ts';
import { makeAccessKeyRoutes } from '../../../functions/access-keys/routes.ts';
import type { AccessKeyService } from '../../../shared/access/access-key-service.ts';
import { ROUTE_GROUPS } from '../../../shared/platform/routes.ts';
import type { ProjectService } from '../../../shared/workspaces/workspace-wiring.ts';
import { apiEvent, lambdaContext } from '../../support/api-event.ts';
import { machineAuthority, mayCall } from '../../../shared/access/permissions.ts';
import { principal as fakePrincipal } from '../support/fakes.ts';

const principal: Principal = {
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  kind: 'machine',
  actorSub: 'mid_1',
  credentialId: 'ak_1',
  authority: machineAuthority(undefined),
};
const context = lambdaContext();

const secretValue = 'sk_live_SHOULD_NOT_LEAK';
/** What every route definition declares for the API description. */
const docs = (operationId: string, response: z.ZodType) => ({ operationId, summary: operationId, response });
const routes = {
  'POST /things': defineRoute({
    ...docs('createThing', z.object({ echoed: z.string() })),
    access: 'workspace',
    status: 201,
    body: z.strictObject({ name: z.string().max(3) }),
    handler: async ({ body }) => ({ data: { echoed: body.name } }),
  }),
  'GET /people-only': defineRoute({ ...docs('peopleOnly', z.number()), access: 'admin', handler: async () => ({ data: 1 }) }),
  'GET /missing': defineRoute({
    ...docs('missing', z.unknown()),
    access: 'workspace',
    handler: async () => Promise.reject(new NotFoundError('thing x was not found')),
  }),
  'GET /limited': defineRoute({
    ...docs('limited', z.unknown()),
    access: 'workspace',
    handler: async () => Promise.reject(new RateLimitedError('slow down', 7)),
  }),
  'GET /boom': defineRoute({
    ...docs('boom', z.unknown()),
    access: 'workspace',
    handler: async () => Promise.reject(new Error(`internal detail ${secretValue}`)),
  }),
};

/** A stand-in for the access feature's authenticator: the fixed principal, refused where the permissions refuse it. */
const asPrincipal = async (_header?: string, _prefetch?: unknown, _origin?: unknown, route?: RouteCall) => {
  if (route && !mayCall(principal.authority, route.access)) throw new ForbiddenError(`This credential may not call ${route.routeKey}`);
  return { principal, prefetched: new Map() };
};

function handler(authenticate = vi.fn(asPrincipal)) {
  return { authenticate, handle: makeRouteGroupHandler(routes, { authenticate, timeoutEarlyInMillis: 0 }) };
}

describe('route group handler', () => {
  it('wraps data in the envelope with a request id in meta and X-Request-Id, and no-store caching', async () => {
    const { handle, authenticate } = handler();
    const result = await handle(apiEvent('POST /things', { token: 't', body: '{"name":"abc"}' }), context);
    const body = JSON.parse(result.body!);
    expect(result.statusCode).toBe(201);
    expect(body).toEqual({
      data: { echoed: 'abc' },
      error: null,
      meta: { requestId: expect.stringMatching(/^req_[0-9A-HJKMNP-TV-Z]{26}$/), timestamp: expect.any(String) },
    });
    expect(result.headers).toMatchObject({ 'x-request-id': body.meta.requestId, 'cache-control': 'no-store' });
    expect(authenticate).toHaveBeenCalledWith(
      'Bearer t',
      undefined,
      { sourceIp: expect.any(String) },
      { routeKey: 'POST /things', access: 'workspace' },
    );
  });

  it('reads headers whatever their case (API Gateway passes them as the client sent them over HTTP/1.1)', async () => {
    // Prepare
    const { authenticate, handle } = handler();
    const event = {
      ...apiEvent('POST /things', { body: JSON.stringify({ name: 'abc' }) }),
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
    };
    // Act
    const result = await handle(event, context);
    // Assess
    expect(result.statusCode).toBe(201);
    expect(authenticate.mock.calls[0]![0]).toBe('Bearer t');
  });

  it('decodes base64 bodies and maps validation and JSON errors to VALIDATION_ERROR', async () => {
    const { handle } = handler();
    const ok = await handle(
      apiEvent('POST /things', { token: 't', body: Buffer.from('{"name":"ab"}').toString('base64'), isBase64Encoded: true }),
      context,
    );
    expect(ok.statusCode).toBe(201);
    const long = await handle(apiEvent('POST /things', { token: 't', body: '{"name":"abcd"}' }), context);
    expect(JSON.parse(long.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be at most 3 characters' });
    const malformed = await handle(apiEvent('POST /things', { token: 't', body: `{"name": "${secretValue}` }), context);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).not.toContain(secretValue);
  });

  it('answers PAYLOAD_TOO_LARGE past 256 KiB and accepts exactly 256 KiB', async () => {
    const { handle } = handler();
    const pad = (n: number) => `{"name":"a"${' '.repeat(n - 12)}}`;
    expect(pad(256 * 1024)).toHaveLength(256 * 1024);
    expect((await handle(apiEvent('POST /things', { token: 't', body: pad(256 * 1024) }), context)).statusCode).toBe(201);
    const over = await handle(apiEvent('POST /things', { token: 't', body: pad(256 * 1024 + 1) }), context);
    expect(over.statusCode).toBe(413);
    expect(JSON.parse(over.body!).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers PAYLOAD_TOO_LARGE past 256 KiB on a route that takes no body too, and ignores a smaller one there', async () => {
    // Prepare: GET /missing takes no body and answers NOT_FOUND once it runs
    const { handle } = handler();
    const body = (bytes: number) => 'x'.repeat(bytes);
    // Act
    const over = await handle(apiEvent('GET /missing', { token: 't', body: body(300 * 1024) }), context);
    const overBase64 = await handle(
      apiEvent('GET /missing', { token: 't', body: Buffer.alloc(256 * 1024 + 1).toString('base64'), isBase64Encoded: true }),
      context,
    );
    const under = await handle(apiEvent('GET /missing', { token: 't', body: body(256 * 1024) }), context);
    // Assess
    expect(over.statusCode).toBe(413);
    expect(JSON.parse(over.body!).error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'body: must be at most 262144 bytes' });
    expect(overBase64.statusCode).toBe(413);
    expect(under.statusCode).toBe(404);
  });

  it('refuses a body nested 10,000 levels deep as VALIDATION_ERROR, never a 500, and takes 64 levels', async () => {
    // Prepare: 20 KB of brackets, which every recursive walk of the parsed body overflows on
    const { handle } = handler();
    const nested = (depth: number) => `{"name":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    // Act
    const deep = await handle(apiEvent('POST /things', { token: 't', body: nested(10_000) }), context);
    const limit = await handle(apiEvent('POST /things', { token: 't', body: nested(64) }), context);
    const past = await handle(apiEvent('POST /things', { token: 't', body: nested(65) }), context);
    // Assess: at the limit the body is walked and answered on its merits (name must be a string)
    expect(deep.statusCode).toBe(400);
    expect(JSON.parse(deep.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: nested deeper than 64 levels' });
    expect(JSON.parse(limit.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be a string' });
    expect(JSON.parse(past.body!).error.message).toBe('body: nested deeper than 64 levels');
  });

  it('refuses a body that is not UTF-8, base64 bytes or an ill-formed string, instead of reading U+FFFD', async () => {
    // Prepare: "ab" then a lone continuation byte, inside the JSON string; a string body holding a lone surrogate
    // (raw, not a JSON escape) cannot have been decoded from UTF-8 either
    const { handle } = handler();
    const bytes = Buffer.concat([Buffer.from('{"name":"ab'), Buffer.from([0x80]), Buffer.from('"}')]);
    // Act
    const binary = await handle(apiEvent('POST /things', { token: 't', body: bytes.toString('base64'), isBase64Encoded: true }), context);
    const text = await handle(apiEvent('POST /things', { token: 't', body: '{"name":"ab\ud800"}' }), context);
    const replacement = await handle(apiEvent('POST /things', { token: 't', body: '{"name":"a\ufffd"}' }), context);
    // Assess: U+FFFD sent as such is a character like any other
    expect(JSON.parse(binary.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be valid UTF-8' });
    expect(JSON.parse(text.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be valid UTF-8' });
    expect(replacement.statusCode).toBe(201);
  });

  it('maps authentication, permission, domain and rate-limit errors to their codes and headers', async () => {
    const denied = handler(vi.fn(async () => Promise.reject(new AuthRequiredError())));
    const malformed = await denied.handle(apiEvent('POST /things', { token: 't', body: '{oops' }), context);
    expect(malformed.statusCode).toBe(401);
    expect((await denied.handle(apiEvent('GET /people-only', { token: 't' }), context)).statusCode).toBe(401);
    const { handle } = handler();
    const forbidden = await handle(apiEvent('GET /people-only', { token: 't' }), context);
    expect(forbidden.statusCode).toBe(403);
    expect(JSON.parse(forbidden.body!).error.code).toBe('FORBIDDEN');
    expect((await handle(apiEvent('GET /missing', { token: 't' }), context)).statusCode).toBe(404);
    const limited = await handle(apiEvent('GET /limited', { token: 't' }), context);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers?.['Retry-After']).toBe('7');
  });

  it('answers a bare INTERNAL_ERROR for anything unexpected, and neither answers nor logs its message', async () => {
    const { handle } = handler();
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation(capture),
      vi.spyOn(process.stderr, 'write').mockImplementation(capture),
    ];
    const result = await handle(apiEvent('GET /boom', { token: 't' }), context).finally(() => spies.forEach((spy) => spy.mockRestore()));
    expect(written.join('')).toContain('unhandled error');
    expect(written.join('')).not.toContain(secretValue);
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body!).error).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' });
    expect(result.body).not.toContain(secretValue);
  });

  it('answers the generic 404 for a route key it does not serve, without authenticating', async () => {
    const { handle, authenticate } = handler();
    const result = await handle(apiEvent('GET /elsewhere', { token: 't' }), context);
    expect(result).toMatchObject({ statusCode: 404, body: '{"message":"Not Found"}' });
    expect(authenticate).not.toHaveBeenCalled();
  });
});

describe('public routes', () => {
  const open = {
    'POST /login': defineRoute({
      ...docs('login', z.object({ who: z.string() })),
      access: 'public',
      body: z.strictObject({ who: z.string() }),
      handler: async ({ body, sourceIp }) => ({ data: { who: `${body.who}@${sourceIp}` } }),
    }),
    'GET /closed': defineRoute({ ...docs('closed', z.number()), access: 'workspace', handler: async () => ({ data: 1 }) }),
  };

  it('serves a public route without a bearer token or an authenticator, with the source address API Gateway saw', async () => {
    const handle = makeRouteGroupHandler(open, { timeoutEarlyInMillis: 0 });
    const result = await handle(
      {
        ...apiEvent('POST /login', { body: JSON.stringify({ who: 'w' }) }),
        requestContext: { http: { sourceIp: '203.0.113.9' } },
      } as never,
      context,
    );
    expect(result).toMatchObject({ statusCode: 200 });
    expect(JSON.parse((result as { body: string }).body).data).toEqual({ who: 'w@203.0.113.9' });
  });

  it('refuses every other route of a group built without an authenticator, token or not', async () => {
    const handle = makeRouteGroupHandler(open, { timeoutEarlyInMillis: 0 });
    for (const token of [undefined, 'sk_live_whatever']) {
      const result = await handle(apiEvent('GET /closed', token ? { token } : {}), context);
      expect(result).toMatchObject({ statusCode: 401 });
    }
  });

  it('declares access public for the login alone, which takes no Idempotency-Key', async () => {
    const { makeAuthRoutes } = await import('../../../functions/auth/routes.ts');
    const { allRouteDefinitions } = await import('../../../bin/openapi/routes.ts');
    const publicRoutes = Object.entries(allRouteDefinitions())
      .filter(([, route]) => route.access === 'public')
      .map(([key]) => key);
    expect(publicRoutes).toEqual(['POST /api/v1/auth/login']);
    const login = makeAuthRoutes({} as never)['POST /api/v1/auth/login'];
    expect(login.idempotent).toBeUndefined();
  });
});

describe('route groups', () => {
  it('serve exactly the route keys the CDK stack and the local front route to them', () => {
    const service = {} as ProjectService;
    expect(Object.keys(makeProjectRoutes(service)).sort()).toEqual([...ROUTE_GROUPS.projects].sort());
    expect(Object.keys(makeEnvironmentRoutes(service)).sort()).toEqual([...ROUTE_GROUPS.environments].sort());
    expect(Object.keys(makeSecretRoutes({} as SecretService, {} as never, {} as never)).sort()).toEqual([...ROUTE_GROUPS.secrets].sort());
    expect(Object.keys(makeAccessKeyRoutes({} as AccessKeyService)).sort()).toEqual([...ROUTE_GROUPS['access-keys']].sort());
    expect(
      Object.keys(
        makeAuditRoutes(
          makeAuditService({ store: { listAudit: async () => ({ items: [], nextCursor: null, hasMore: false }) } }),
          {} as never,
        ),
      ).sort(),
    ).toEqual([...ROUTE_GROUPS.audit].sort());
  });
});

describe('lazy routes', () => {
  it('builds each route the first time it is read, once, and not the others', () => {
    const built: string[] = [];
    const declare = (name: string) => () => (built.push(name), { name } as never);
    const routes = lazyRoutes({ first: declare('first'), second: declare('second') });
    expect(built).toEqual([]);
    const first = routes.first;
    expect(routes.first).toBe(first);
    expect(built).toEqual(['first']);
    expect(Object.keys(routes)).toEqual(['first', 'second']);
  });
});

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
