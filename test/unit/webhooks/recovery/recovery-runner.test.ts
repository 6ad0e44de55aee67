import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import type { DeliveryMessage, RecoveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import type { StoredDelivery } from '../../../../shared/webhooks/deliveries/delivery-records.ts';
import { makeRecoveryRunner, type RecoveryDeps } from '../../../../shared/webhooks/recovery/recovery-runner.ts';
import type { Recovery } from '../../../../shared/webhooks/recovery/recovery-store.ts';
import { bucketStart } from '../../../../shared/webhooks/stats/delivery-stats-store.ts';
import { fakeClock, fakeLogger, T0 } from '../../support/fakes.ts';
import { delivery, endpoint, WS } from '../pipeline-support.ts';

const RECOVERY_ID = 'aud_01JX0000000000000000000000';
const message = (step = 0): RecoveryMessage => ({ workspaceId: WS, recoveryId: RECOVERY_ID, step });

/**
 * A runner over an in-memory recovery and failed list: `failed` ids in order, `late` those counted late, pages of
 * `pageSize`; the endpoint enabled unless told. What it queues, uncounts and how the recovery moves is recorded.
 */
function harness(options: { failed: string[]; late?: string[]; enabled?: boolean; step?: number; moved?: boolean; budgetMs?: number }) {
  let recovery: Recovery = {
    id: RECOVERY_ID,
    endpointId: 'we_01',
    fromId: 'whd_0',
    toId: 'whd_Z',
    since: 'S',
    until: 'U',
    expected: options.failed.length,
    queued: 0,
    cursor: null,
    step: options.step ?? 0,
    status: 'running',
    createdAt: 'C',
    updatedAt: 'C',
  };
  const queued: DeliveryMessage[] = [];
  const uncounted: { createdAt: number; count: number }[] = [];
  const continued: RecoveryMessage[] = [];
  const recovered: number[] = [];
  const failed = [...options.failed];
  const store: RecoveryDeps['store'] = {
    getRecovery: async () => structuredClone(recovery),
    getEndpoint: async () => endpoint({ enabled: options.enabled ?? true }),
    failedPage: async (_ws, at, limit) => {
      const after = at.cursor === null ? 0 : failed.indexOf(at.cursor) + 1;
      const ids = failed.slice(after, after + limit);
      return { ids, last: ids.at(-1) ?? null, more: after + limit < failed.length };
    },
    requeueFailed: async (_ws, id, _endpoint, token): Promise<StoredDelivery> =>
      delivery({ id, attemptToken: token, manual: true, lateCounted: options.late?.includes(id) ?? false }),
    advanceRecovery: async (_ws, at, next) => {
      if (options.moved || at.step !== recovery.step) return false;
      recovery = { ...recovery, cursor: next.cursor, queued: recovery.queued + next.queued, step: recovery.step + 1, status: next.status };
      return true;
    },
  };
  const run = makeRecoveryRunner({
    store,
    uncountFailed: async (_ws, _endpoint, createdAt, count) => void uncounted.push({ createdAt, count }),
    enqueueAll: async (messages) => (queued.push(...messages), []),
    continueRecovery: async (next) => void continued.push(next),
    clock: fakeClock(T0),
    metrics: { recovered: (n) => void recovered.push(n) },
    log: fakeLogger(),
    pageSize: 2,
    budgetMs: options.budgetMs ?? 60_000,
  });
  return { run, queued, uncounted, continued, recovered, recovery: () => recovery };
}

const ids = (n: number, at = T0) => Array.from({ length: n }, (_, i) => `whd_${ulid(at + i)}`);

describe('the recovery runner', () => {
  it('queues every failed delivery page by page, each once with its new token, and ends the recovery done', async () => {
    // Prepare
    const failed = ids(5);
    const h = harness({ failed });
    // Act
    const outcome = await h.run(message());
    // Assess
    expect(outcome).toBe('done');
    expect(h.queued.map((m) => m.deliveryId)).toEqual(failed);
    expect(h.queued.every((m) => m.workspaceId === WS && m.attemptToken.length > 0)).toBe(true);
    expect(h.recovery()).toMatchObject({ status: 'done', queued: 5, step: 3, cursor: failed[4] });
    expect(h.recovered).toEqual([2, 2, 1]);
  });

  it('takes the deliveries counted late out of their bucket, one change per bucket', async () => {
    // Prepare: two late deliveries of one bucket, one of the next, one counted by its rollup
    const first = ids(2, T0);
    const next = ids(1, T0 + 120_000);
    const h = harness({ failed: [...first, ...next, ...ids(1, T0 + 240_000)], late: [...first, ...next] });
    // Act
    await h.run(message());
    // Assess
    expect(h.uncounted).toEqual([
      { createdAt: bucketStart(T0), count: 2 },
      { createdAt: bucketStart(T0 + 120_000), count: 1 },
    ]);
  });

  it('does nothing for a message whose step the recovery is no longer at (seen twice, or stale)', async () => {
    const h = harness({ failed: ids(3), step: 1 });
    expect(await h.run(message(0))).toBe('dropped');
    expect(h.queued).toEqual([]);
  });

  it('stops, queueing nothing more, once the endpoint is paused, switched off or deleted', async () => {
    const h = harness({ failed: ids(3), enabled: false });
    expect(await h.run(message())).toBe('stopped');
    expect(h.queued).toEqual([]);
    expect(h.recovery().status).toBe('stopped');
  });

  it('stops when another runner of the same step moved the recovery on first', async () => {
    const h = harness({ failed: ids(3), moved: true });
    expect(await h.run(message())).toBe('dropped');
  });

  it("hands the rest to the next step's message once its time budget is spent", async () => {
    // Prepare: no budget, so it stops after its first page
    const h = harness({ failed: ids(5), budgetMs: 0 });
    // Act
    const outcome = await h.run(message());
    // Assess
    expect(outcome).toBe('continued');
    expect(h.queued).toHaveLength(2);
    expect(h.continued).toEqual([message(1)]);
  });
});
