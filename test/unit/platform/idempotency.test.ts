import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { NotFoundError } from '../../../shared/platform/errors.ts';
import { makeRouteGroupHandler } from '../../../shared/platform/http/handler.ts';
import { defineRoute } from '../../../shared/platform/http/route.ts';
import { announceAnswer } from '../../../shared/platform/idempotency-scope.ts';
import { transact } from '../../../shared/platform/store/conditional.ts';
import { createHash } from 'node:crypto';
import type { IdempotencyRecord, IdempotencyRef } from '../../../shared/platform/idempotency-scope.ts';
import { testMacs } from '../support/fakes.ts';
import { apiEvent, lambdaContext } from '../../support/api-event.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';

/** A table whose transactions are all cancelled by the condition of their first item (a lost race). */
const losingDb = {
  tableName: 't',
  doc: {
    send: async () =>
      Promise.reject(
        Object.assign(new Error('cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
        }),
      ),
  },
} as never;

const NOW = 1_000_000;
const principal = {
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  kind: 'api_key' as const,
  actorSub: 'key_1',
  credentialId: 'key_1',
  authority: API_KEY_AUTHORITY,
};
const context = lambdaContext();
/** A request to `routeKey`, with `key` as its Idempotency-Key when given. */
const event = (routeKey: string, key?: string) => apiEvent(routeKey, { token: 't', headers: { 'idempotency-key': key } });

/** A table whose transactions all commit, keeping what they carried. */
const sentTransactions: unknown[] = [];
const committingDb = {
  tableName: 't',
  doc: { send: async (command: { input: unknown }) => void sentTransactions.push(command.input) },
} as never;

/** `timeoutEarlyInMillis`: middy's margin (0: no early answer). */
function setup(timeoutEarlyInMillis = 0) {
  const store = {
    claimIdempotency: vi.fn(async (_ref: IdempotencyRef, _claim: { requestHash: string }) => true),
    getIdempotency: vi.fn(async (_ref: IdempotencyRef): Promise<IdempotencyRecord | undefined> => undefined),
    idempotencyCompletion: vi.fn(() => ({})),
    completeIdempotency: vi.fn(async () => undefined),
    releaseIdempotency: vi.fn(async () => undefined),
  };
  const docs = {
    operationId: 'x',
    summary: 'x',
    response: z.object({ ok: z.boolean() }),
    access: 'workspace' as const,
    idempotent: true as const,
  };
  const routes = {
    'POST /ok': defineRoute({ ...docs, handler: async () => ({ data: { ok: true } }) }),
    'POST /put': defineRoute({
      ...docs,
      body: z.strictObject({ key: z.string(), value: z.string() }),
      handler: async () => ({ data: { ok: true } }),
    }),
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
    'POST /slow': defineRoute({
      ...docs,
      // Commits once the test lets it, long after its Lambda ran out of time.
      handler: async () => {
        await new Promise<void>((resolve) => (finishSlow = resolve));
        announceAnswer({ ok: true });
        await transact(committingDb, [{ ConditionCheck: { TableName: 't', Key: {}, ConditionExpression: 'x' } }], [0]);
        return { data: { ok: true } };
      },
    }),
  };
  let finishSlow = () => undefined as void;
  const handle = makeRouteGroupHandler(routes, {
    authenticate: async () => ({ principal, prefetched: new Map() }),
    timeoutEarlyInMillis,
    idempotency: { store, clock: { now: () => NOW }, macs: testMacs },
  });
  return { store, handle, finishSlow: () => finishSlow() };
}

describe('idempotency middleware', () => {
  it('records a success answered without a transaction after the handler, with the answer given', async () => {
    const { store, handle } = setup();
    const result = await handle(event('POST /ok', 'k1'), context);
    expect(store.claimIdempotency).toHaveBeenCalledOnce();
    expect(store.completeIdempotency).toHaveBeenCalledWith(
      { workspaceId: 'ws_1', credentialId: 'key_1', record: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
      expect.any(String),
      { status: 200, body: result.body },
    );
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

  it('keeps the key of a request answered early out of time: its handler may still commit, recording its answer', async () => {
    const { store, handle, finishSlow } = setup(950);
    // 1 s left and a 950 ms margin: middy answers 503 after 50 ms while the handler waits.
    const result = await handle(event('POST /slow', 'k-slow'), { ...context, getRemainingTimeInMillis: () => 1000 });
    expect(result.statusCode).toBe(503);
    expect(store.releaseIdempotency).not.toHaveBeenCalled();
    sentTransactions.length = 0;
    finishSlow();
    await vi.waitFor(() => expect(sentTransactions).toHaveLength(1));
    // The late change still carries its answer's record (guarded by the lease it holds).
    expect((sentTransactions[0] as { TransactItems: unknown[] }).TransactItems).toHaveLength(2);
    expect(store.idempotencyCompletion).toHaveBeenCalledOnce();
  });

  it('does nothing without the header, and refuses a key that is not printable ASCII', async () => {
    const { store, handle } = setup();
    await handle(event('POST /ok'), context);
    expect(store.claimIdempotency).not.toHaveBeenCalled();
    const bad = await handle(event('POST /ok', 'naïve'), context);
    expect(JSON.parse(bad.body!).error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Idempotency-Key: must be 1 to 255 printable ASCII characters',
    });
  });

  it('replays a finished answer without running the handler, and refuses a running twin (Retry-After: its lease left) or another request', async () => {
    // Prepare: the keyed digest the middleware records for POST /ok, taken from a first claim
    const { store, handle } = setup();
    store.claimIdempotency.mockResolvedValue(false);
    const first = setup();
    await first.handle(event('POST /ok', 'k4'), context);
    const requestHash = first.store.claimIdempotency.mock.calls[0]![1].requestHash;
    const keyed = (record: Partial<IdempotencyRecord>) => (ref: IdempotencyRef) =>
      Promise.resolve(
        ref.legacy
          ? undefined
          : ({ requestHash, answer: undefined, leaseUntil: undefined, ttl: undefined, state: 'done', ...record } as IdempotencyRecord),
      );
    // Act / Assess
    store.getIdempotency.mockImplementation(keyed({ answer: { status: 201, body: '{"recorded":true}' } }));
    expect(await handle(event('POST /ok', 'k4'), context)).toMatchObject({
      statusCode: 201,
      body: '{"recorded":true}',
      headers: { 'idempotent-replayed': 'true' },
    });
    store.getIdempotency.mockImplementation(keyed({ state: 'running', leaseUntil: NOW + 42_300 }));
    const running = await handle(event('POST /ok', 'k4'), context);
    expect([JSON.parse(running.body!).error.code, running.headers?.['Retry-After']]).toEqual(['CONFLICT', '43']);
    store.getIdempotency.mockImplementation(keyed({ requestHash: 'other', answer: { status: 201, body: '{}' } }));
    expect(JSON.parse((await handle(event('POST /ok', 'k4'), context)).body!).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keys the record and the request digest with the service MAC: neither the key nor the unkeyed SHA-256 of the request is stored', async () => {
    // Prepare: the unkeyed digest the middleware stored before (method and route, path, query, body, If-Match)
    const { store, handle } = setup();
    const body = { key: 'PIN', value: '1234' };
    const request = { ...event('POST /put', 'client-key-1'), body: JSON.stringify(body) };
    const unkeyed = createHash('sha256')
      .update(JSON.stringify(['POST /put', {}, {}, body, null]))
      .digest();
    // Act
    await handle(request, context);
    // Assess
    const [ref, claim] = store.claimIdempotency.mock.calls[0]!;
    const stored = JSON.stringify([ref, claim]);
    for (const form of ['hex', 'base64', 'base64url'] as const) expect(stored).not.toContain(unkeyed.toString(form));
    expect(stored).not.toContain('client-key-1');
    expect(claim.requestHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('honours a record of the old form (raw key, unkeyed SHA-256) written before the upgrade: replays it and gives its own claim back', async () => {
    // Prepare: a finished record under the key itself, with the unkeyed digest the old code stored
    const { store, handle } = setup();
    const legacyHash = createHash('sha256')
      .update(JSON.stringify(['POST /ok', {}, {}, null, null]))
      .digest('hex');
    store.getIdempotency.mockImplementation(async (ref: IdempotencyRef) =>
      ref.legacy && ref.record === 'k6'
        ? {
            requestHash: legacyHash,
            state: 'done',
            answer: { status: 200, body: '{"first":true}' },
            leaseUntil: undefined,
            ttl: Math.floor(NOW / 1000) + 3600,
          }
        : undefined,
    );
    // Act
    const replay = await handle(event('POST /ok', 'k6'), context);
    // Assess
    expect(replay).toMatchObject({ statusCode: 200, body: '{"first":true}', headers: { 'idempotent-replayed': 'true' } });
    expect(store.releaseIdempotency).toHaveBeenCalledOnce();
    expect(store.completeIdempotency).not.toHaveBeenCalled();
  });

  it('ignores an old-form record past its 24 hours, or given back, and runs the request', async () => {
    // Prepare
    const { store, handle } = setup();
    const legacyHash = createHash('sha256')
      .update(JSON.stringify(['POST /ok', {}, {}, null, null]))
      .digest('hex');
    const old = { requestHash: legacyHash, answer: { status: 200, body: '{"first":true}' }, leaseUntil: undefined };
    store.getIdempotency.mockResolvedValueOnce({ ...old, state: 'done', ttl: Math.floor(NOW / 1000) - 1 });
    store.getIdempotency.mockResolvedValueOnce({ ...old, state: 'released', ttl: undefined });
    // Act
    const answers = [await handle(event('POST /ok', 'k7'), context), await handle(event('POST /ok', 'k8'), context)];
    // Assess
    expect(answers.map((answer) => [answer.statusCode, JSON.parse(answer.body!).data])).toEqual([
      [200, { ok: true }],
      [200, { ok: true }],
    ]);
    expect(store.releaseIdempotency).not.toHaveBeenCalled();
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
