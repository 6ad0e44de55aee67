import { describe, expect, it } from 'vitest';
import type { PushedValue, SyncDestination } from '../../../../shared/syncs/destinations/destination.ts';
import { DestinationError } from '../../../../shared/syncs/destinations/destination.ts';
import { FAILING_AFTER_MS } from '../../../../shared/syncs/pipeline/sync-failures.ts';
import { makeSyncPush } from '../../../../shared/syncs/pipeline/sync-push.ts';
import type { PushOutcome, RunnableSync } from '../../../../shared/syncs/pipeline/sync-run-store.ts';
import type { SyncMessage } from '../../../../shared/syncs/sync-queue.ts';
import { syncRecord } from '../support.ts';

const T = Date.parse('2026-12-07T10:00:00.000Z');
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

const runnable = (over: Partial<RunnableSync> = {}): RunnableSync => ({ ...syncRecord(), pushedThrough: 0, ...over });

/** The environment's current values, a destination that records what it is asked, and the sync's item. */
function harness(
  options: { sync?: Partial<RunnableSync>; env?: Record<string, string>; written?: string[]; wholeEnvironment?: boolean } = {},
) {
  let now = T;
  let sync: RunnableSync | undefined = runnable(options.sync);
  let lease: string | undefined;
  let written = new Set(options.written ?? []);
  const env = new Map(Object.entries(options.env ?? { A: 'a1', B: 'b1' }));
  const outcomes: PushOutcome[] = [];
  const queued: { message: SyncMessage; delay: number }[] = [];
  const revealed: (string[] | null)[] = [];
  const calls: string[] = [];
  let failWith: Error | undefined;
  const destination: SyncDestination = {
    wholeEnvironment: options.wholeEnvironment ?? false,
    async put(values: readonly PushedValue[]) {
      if (failWith) throw failWith;
      calls.push(`put ${values.map((v) => `${v.key}=${v.value}`).join(',')}`);
    },
    async remove(keys: readonly string[]) {
      calls.push(`remove ${keys.join(',')}`);
    },
  };
  const push = makeSyncPush({
    runs: {
      getRunnableSync: async () => sync && { ...sync },
      takeLease: async (_ws, _id, owner) => {
        if (lease) return false;
        lease = owner;
        return true;
      },
      finishPush: async (_ws, _id, owner, outcome) => {
        if (lease !== owner) return false;
        lease = undefined;
        outcomes.push(outcome);
        sync = sync && {
          ...sync,
          status: outcome.status,
          lastError: outcome.lastError,
          failingSince: outcome.failingSince,
          lastSyncedAt: outcome.lastSyncedAt,
          ...(outcome.pushedThrough !== undefined && { pushedThrough: outcome.pushedThrough }),
        };
        if (outcome.written) written = new Set(outcome.written);
        return true;
      },
      releaseLease: async () => {
        lease = undefined;
      },
      getWrittenKeys: async () => new Set(written),
    },
    reveal: async (_ws, _sync, keys, matches) => {
      revealed.push(keys ? [...keys] : null);
      return [...env].filter(([key]) => (keys === null || keys.includes(key)) && matches(key)).map(([key, value]) => ({ key, value }));
    },
    destinationOf: async () => destination,
    queue: { enqueue: async (message, delay = 0) => void queued.push({ message, delay }) },
    clock: { now: () => now },
    log: silent,
    timeScale: 1,
  });
  const message = (keys: string[] | null, over: Partial<SyncMessage> = {}): SyncMessage => ({
    workspaceId: 'ws_1',
    syncId: 'sync_1',
    keys,
    at: now,
    attempt: 1,
    ...over,
  });
  return {
    push,
    message,
    env,
    calls,
    outcomes,
    queued,
    revealed,
    state: () => sync,
    written: () => written,
    holdLease: () => void (lease = 'other'),
    fail: (error?: Error) => void (failWith = error),
    advance: (ms: number) => void (now += ms),
    delete: () => void (sync = undefined),
  };
}

describe('a push of a sync', () => {
  it('a full push sends every current value, records what it wrote, and makes the sync ok', async () => {
    const h = harness();
    await h.push(h.message(null));
    expect(h.calls).toEqual(['put A=a1,B=b1']);
    expect(h.state()).toMatchObject({ status: 'ok', lastError: null, lastSyncedAt: new Date(T).toISOString(), pushedThrough: T });
    expect([...h.written()].sort()).toEqual(['A', 'B']);
  });

  it('sends what is current when it runs: an older change pushed late sends the newer value', async () => {
    const h = harness();
    const old = h.message(['A']);
    h.env.set('A', 'a2');
    await h.push(old);
    expect(h.calls).toEqual(['put A=a2']);
  });

  it('drops a change a later full push already covered, and only keys its pattern matches are asked for', async () => {
    const h = harness({ sync: { keys: 'A*', pushedThrough: T + 10 } });
    await h.push(h.message(['A'], { at: T }));
    expect(h.revealed).toEqual([]);
    await h.push(h.message(['A', 'B'], { at: T + 20 }));
    expect(h.revealed).toEqual([['A']]);
  });

  it('one push of a sync at a time: a message for a busy sync is queued again shortly, nothing read or sent', async () => {
    const h = harness();
    h.holdLease();
    await h.push(h.message(['A']));
    expect([h.calls, h.revealed, h.queued.map((q) => q.delay)]).toEqual([[], [], [5]]);
  });

  it('prune removes the keys it wrote that left the environment; without prune they stay', async () => {
    const pruning = harness({ sync: { prune: true }, written: ['A', 'B', 'GONE'] });
    await pruning.push(pruning.message(null));
    expect(pruning.calls).toEqual(['put A=a1,B=b1', 'remove GONE']);
    expect([...pruning.written()].sort()).toEqual(['A', 'B']);
    const keeping = harness({ written: ['A', 'B', 'GONE'] });
    await keeping.push(keeping.message(['GONE']));
    expect(keeping.calls).toEqual([]);
    expect([...keeping.written()].sort()).toEqual(['A', 'B', 'GONE']);
  });

  it('a deleted or paused sync pushes nothing', async () => {
    const paused = harness({ sync: { status: 'paused' } });
    await paused.push(paused.message(null));
    const deleted = harness();
    deleted.delete();
    await deleted.push(deleted.message(null));
    expect([paused.calls, deleted.calls, paused.revealed]).toEqual([[], [], []]);
  });

  it('a failure records its error and retries on the schedule; after 24 hours of them the sync is failing, audited once', async () => {
    const h = harness({ sync: { status: 'ok' } });
    h.fail(new DestinationError('GitHub answered 401 Bad credentials'));
    await h.push(h.message(['A']));
    expect(h.state()).toMatchObject({
      status: 'ok',
      lastError: 'GitHub answered 401 Bad credentials',
      failingSince: new Date(T).toISOString(),
    });
    expect(h.queued.map((q) => [q.message.attempt, q.message.notBefore])).toEqual([[2, T + 60_000]]);
    expect(h.outcomes[0]!.audit).toBeUndefined();
    h.advance(FAILING_AFTER_MS);
    await h.push(h.message(['A'], { attempt: 6 }));
    expect(h.state()!.status).toBe('failing');
    expect(h.outcomes[1]!.audit).toMatchObject({
      action: 'sync.update',
      actorSub: 'system',
      metadata: { status: 'failing', syncId: 'sync_1' },
    });
    // Failing: no background retry; the next failure audits nothing more.
    expect(h.queued).toHaveLength(1);
    await h.push(h.message(['A']));
    expect(h.outcomes[2]!.audit).toBeUndefined();
    // The next success makes it ok again, audited (service.sync.recovered).
    h.fail(undefined);
    await h.push(h.message(['A']));
    expect(h.state()).toMatchObject({ status: 'ok', lastError: null, failingSince: null });
    expect(h.outcomes[3]!.audit).toMatchObject({ metadata: { status: 'ok' } });
  });

  it('the last wait before 24 hours of failures is cut so an attempt falls when they are 24 hours old', async () => {
    const h = harness({ sync: { failingSince: new Date(T - FAILING_AFTER_MS + 3_600_000).toISOString() } });
    h.fail(new DestinationError('down'));
    await h.push(h.message(['A'], { attempt: 5 }));
    expect(h.queued[0]!.message.notBefore).toBe(T + 3_600_000);
  });

  it('a retry due later than SQS can delay waits in hops of at most 15 minutes, then runs', async () => {
    const h = harness();
    await h.push(h.message(['A'], { notBefore: T + 2 * 3_600_000 }));
    expect([h.calls, h.queued[0]!.delay]).toEqual([[], 7200]);
    h.advance(2 * 3_600_000);
    await h.push(h.message(['A'], { notBefore: T + 2 * 3_600_000 - 1 }));
    expect(h.calls).toEqual(['put A=a1']);
  });
});
