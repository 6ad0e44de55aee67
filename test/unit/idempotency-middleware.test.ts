import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { NotFoundError } from '../../shared/errors.ts';
import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { defineRoute, EVERYONE } from '../../shared/http/route.ts';
import { announceAnswer } from '../../shared/idempotency-scope.ts';
import { transact } from '../../shared/store/conditional.ts';

/** A table whose transactions are all cancelled by the condition of their first item (a lost race). */
const losingDb = {
  tableName: 't',
  doc: { send: async () => Promise.reject(Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] })) },
} as never;

const principal = { workspaceId: 'ws_1', accountId: 'acc_1', kind: 'api_key' as const, actorSub: 'key_1', credentialId: 'key_1' };
const context = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const event = (routeKey: string, key?: string): APIGatewayProxyEventV2 =>
  ({ version: '2.0', routeKey, rawPath: '/', rawQueryString: '', headers: { authorization: 'Bearer t', ...(key ? { 'idempotency-key': key } : {}) }, isBase64Encoded: false, requestContext: {} } as never);

function setup() {
  const store = {
    claimIdempotency: vi.fn(async () => true),
    getIdempotency: vi.fn(async () => undefined),
    idempotencyCompletion: vi.fn(() => ({})),
    completeIdempotency: vi.fn(async () => undefined),
    releaseIdempotency: vi.fn(async () => undefined),
  };
  const docs = { operationId: 'x', summary: 'x', response: z.object({ ok: z.boolean() }), allow: EVERYONE, idempotent: true as const };
  const routes = {
    'POST /ok': defineRoute({ ...docs, handler: async () => ({ data: { ok: true } }) }),
    'POST /missing': defineRoute({ ...docs, handler: async () => Promise.reject(new NotFoundError('thing x was not found')) }),
    'POST /boom': defineRoute({ ...docs, handler: async () => Promise.reject(new Error('unexpected')) }),
    'POST /lost-race': defineRoute({
      ...docs,
      handler: async () => {
        announceAnswer({ ok: true });
        const failed = await transact(losingDb, [{ ConditionCheck: { TableName: 't', Key: {}, ConditionExpression: 'x' } }], [0]);
        return { data: { ok: failed === undefined } };
      },
    }),
  };
  const handle = makeRouteGroupHandler(routes, {
    authenticate: async () => ({ principal, prefetched: new Map() }),
    timeoutEarlyInMillis: 0,
    idempotency: { store, clock: { now: () => 1_000 } },
  });
  return { store, handle };
}

describe('idempotency middleware', () => {
  it('records a success answered without a transaction after the handler, with the answer given', async () => {
    const { store, handle } = setup();
    const result = await handle(event('POST /ok', 'k1'), context);
    expect(store.claimIdempotency).toHaveBeenCalledOnce();
    expect(store.completeIdempotency).toHaveBeenCalledWith({ workspaceId: 'ws_1', credentialId: 'key_1', key: 'k1' }, expect.any(String), { status: 200, body: result.body });
  });

  it('records a refusal (4xx), and gives the key back after a 5xx so the client may retry', async () => {
    const { store, handle } = setup();
    const refused = await handle(event('POST /missing', 'k2'), context);
    expect(refused.statusCode).toBe(404);
    expect(store.completeIdempotency).toHaveBeenCalledWith(expect.anything(), expect.any(String), { status: 404, body: refused.body });
    const failed = await handle(event('POST /boom', 'k3'), context);
    expect(failed.statusCode).toBe(500);
    expect(store.releaseIdempotency).toHaveBeenCalledOnce();
  });

  it('does nothing without the header, and refuses a key that is not printable ASCII', async () => {
    const { store, handle } = setup();
    await handle(event('POST /ok'), context);
    expect(store.claimIdempotency).not.toHaveBeenCalled();
    const bad = await handle(event('POST /ok', 'naïve'), context);
    expect(JSON.parse(bad.body!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'Idempotency-Key: must be 1 to 255 printable ASCII characters' });
  });

  it('replays a finished answer without running the handler, and refuses a running twin or another request', async () => {
    const { store, handle } = setup();
    store.claimIdempotency.mockResolvedValue(false);
    const hashOf = async () => {
      // The hash the middleware computes for POST /ok: taken from a first claim.
      const first = setup();
      await first.handle(event('POST /ok', 'k4'), context);
      return (first.store.claimIdempotency.mock.calls[0] as unknown as [unknown, { requestHash: string }])[1].requestHash;
    };
    const requestHash = await hashOf();
    store.getIdempotency.mockResolvedValueOnce({ requestHash, state: 'done', answer: { status: 201, body: '{"recorded":true}' } } as never);
    const replay = await handle(event('POST /ok', 'k4'), context);
    expect(replay).toMatchObject({ statusCode: 201, body: '{"recorded":true}', headers: { 'idempotent-replayed': 'true' } });
    store.getIdempotency.mockResolvedValueOnce({ requestHash, state: 'running', answer: undefined } as never);
    const running = await handle(event('POST /ok', 'k4'), context);
    expect([JSON.parse(running.body!).error.code, running.headers?.['Retry-After']]).toEqual(['CONFLICT', '1']);
    store.getIdempotency.mockResolvedValueOnce({ requestHash: 'other', state: 'done', answer: { status: 201, body: '{}' } } as never);
    expect(JSON.parse((await handle(event('POST /ok', 'k4'), context)).body!).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers and records what the service answered when the transaction carrying the announced answer did not commit', async () => {
    // Prepare
    const { store, handle } = setup();
    // Act
    const result = await handle(event('POST /lost-race', 'k5'), context);
    // Assess: the announced {ok: true} never committed, so neither the client nor the record sees it
    expect(JSON.parse(result.body!).data).toEqual({ ok: false });
    expect(store.idempotencyCompletion).toHaveBeenCalledOnce();
    expect(store.completeIdempotency).toHaveBeenCalledWith(expect.anything(), expect.any(String), { status: 200, body: result.body });
  });
});
