import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { makeSweeper, type SweeperDeps } from '../../../../shared/webhooks/deliveries/sweeper.ts';
import type { RecoveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { fakeClock, fakeQueue, MINUTE, T0 } from '../../support/fakes.ts';
import { delivery, WS } from '../pipeline-support.ts';

type Due = { workspaceId: string; id: string; attemptToken: string };

/** A sweeper over lists of due deliveries and stalled recoveries; `moved` names deliveries that changed since the read. */
function harness(input: { due?: Due[]; moved?: string[]; stalled?: { workspaceId: string; id: string; step: number }[] }) {
  const asked: { dueBefore?: string; stalledBefore?: string } = {};
  const restarted: RecoveryMessage[] = [];
  const requeued: { id: string; observed: string; token: string; now: string }[] = [];
  const queue = fakeQueue();
  const store: SweeperDeps['store'] = {
    async dueDeliveries(before) {
      asked.dueBefore = before;
      return input.due ?? [];
    },
    async requeue(_ws, id, observed, token, now) {
      if (input.moved?.includes(id)) return undefined;
      requeued.push({ id, observed, token, now });
      return delivery({ id, attemptToken: token });
    },
    async stalledRecoveries(before) {
      asked.stalledBefore = before;
      return input.stalled ?? [];
    },
  };
  const sweep = makeSweeper({
    store,
    enqueue: (m, o) => queue.enqueue(m, o),
    enqueueRecovery: async (m) => void restarted.push(m),
    clock: fakeClock(),
    graceMs: 2 * MINUTE,
  });
  return { sweep, asked, requeued, queue, restarted };
}

describe('sweeper', () => {
  it('looks only at deliveries and recoveries older than the grace period', async () => {
    const h = harness({});
    await h.sweep();
    expect(h.asked).toEqual({ dueBefore: iso(T0 - 2 * MINUTE), stalledBefore: iso(T0 - 2 * MINUTE) });
  });

  it('re-queues a lost delivery under a fresh token, swapped from the one it was seen with, due now', async () => {
    // Prepare
    const h = harness({ due: [{ workspaceId: WS, id: 'whd_01', attemptToken: 'tok-lost' }] });
    // Act
    const result = await h.sweep();
    // Assess
    expect(result).toEqual({ requeued: 1, recoveriesRestarted: 0 });
    const [swap] = h.requeued;
    expect(swap).toMatchObject({ id: 'whd_01', observed: 'tok-lost', now: iso(T0) });
    expect(swap!.token).not.toBe('tok-lost');
    expect(h.queue.sent).toEqual([
      { message: { workspaceId: WS, deliveryId: 'whd_01', attemptToken: swap!.token }, at: T0, viaScheduler: false },
    ]);
  });

  it('gives every re-queued delivery its own token', async () => {
    const h = harness({ due: [1, 2, 3].map((n) => ({ workspaceId: WS, id: `whd_0${n}`, attemptToken: 'tok-lost' })) });
    await h.sweep();
    expect(new Set(h.requeued.map((r) => r.token)).size).toBe(3);
  });

  it('a delivery that moved on since it was read (its worker or a manual retry got there) is neither queued nor counted', async () => {
    const h = harness({
      due: [
        { workspaceId: WS, id: 'whd_01', attemptToken: 'tok-a' },
        { workspaceId: WS, id: 'whd_02', attemptToken: 'tok-b' },
      ],
      moved: ['whd_01'],
    });
    const result = await h.sweep();
    expect(result.requeued).toBe(1);
    expect(h.queue.sent.map((s) => s.message.deliveryId)).toEqual(['whd_02']);
  });

  it("sends a stalled recovery's step again, the step it is at", async () => {
    const h = harness({ stalled: [{ workspaceId: WS, id: 'aud_01', step: 4 }] });
    expect(await h.sweep()).toEqual({ requeued: 0, recoveriesRestarted: 1 });
    expect(h.restarted).toEqual([{ workspaceId: WS, recoveryId: 'aud_01', step: 4 }]);
  });
});
