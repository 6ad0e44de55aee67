import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import type { StatsRollupMessage } from '../../../../shared/webhooks/stats/stats-message.ts';
import { makeStatsRollupTrigger } from '../../../../shared/webhooks/stats/stats-trigger.ts';
import { fakeLogger } from '../../support/fakes.ts';
import { WS } from '../stats-support.ts';

const ms = (time: string) => Date.parse(`2026-03-02T${time}Z`);

/** A trigger whose queue records what it is asked, and fails while `down` is set. */
function harness() {
  const queued: { message: StatsRollupMessage; at: number }[] = [];
  const state = { down: false };
  const log = fakeLogger();
  const trigger = makeStatsRollupTrigger({
    enqueue: async (message, at) => {
      if (state.down) throw Object.assign(new Error('SQS unavailable'), { name: 'ServiceUnavailableError' });
      queued.push({ message, at });
    },
    log,
  });
  return { trigger, queued, state, log };
}

describe('statistics rollup trigger (the fan-out)', () => {
  it('asks once per workspace and bucket, for when the bucket can be rolled up', async () => {
    // Prepare
    const h = harness();
    // Act: three deliveries of one bucket, one of the next, one of another workspace; then more of the first bucket
    h.trigger.note(WS, ms('09:40:01.000'));
    h.trigger.note(WS, ms('09:41:59.999'));
    h.trigger.note(WS, ms('09:42:00.000'));
    h.trigger.note('ws_01JX0000000000000000000001', ms('09:40:05.000'));
    await h.trigger.flush();
    h.trigger.note(WS, ms('09:41:00.000'));
    await h.trigger.flush();
    // Assess: each bucket's end, 15 s of cutoff, 15 s of safety and a second later
    expect(h.queued).toEqual([
      { message: { workspaceId: WS, rollupUntil: ms('09:42:00.000') }, at: ms('09:42:31.000') },
      { message: { workspaceId: WS, rollupUntil: ms('09:44:00.000') }, at: ms('09:44:31.000') },
      { message: { workspaceId: 'ws_01JX0000000000000000000001', rollupUntil: ms('09:42:00.000') }, at: ms('09:42:31.000') },
    ]);
  });

  it('logs a rollup it could not queue and asks again with the next delivery of that bucket', async () => {
    const h = harness();
    h.state.down = true;
    h.trigger.note(WS, ms('09:40:01.000'));
    await h.trigger.flush();
    expect(h.log.lines).toEqual([{ level: 'warn', message: 'statistics rollup not queued' }]);
    h.state.down = false;
    h.trigger.note(WS, ms('09:40:02.000'));
    await h.trigger.flush();
    expect(h.queued.map((q) => q.message.rollupUntil)).toEqual([ms('09:42:00.000')]);
  });

  it("watches a store's createDelivery: each delivery it is asked to make is noted under its id's time", async () => {
    const h = harness();
    const made: string[] = [];
    const store = h.trigger.watch({
      createDelivery: async (_ws: string, delivery: { id: string }) => (made.push(delivery.id), true),
    } as never) as { createDelivery: (...args: unknown[]) => Promise<boolean> };
    const id = `whd_${ulid(ms('09:43:00.000'))}`;
    expect(await store.createDelivery(WS, { id, createdAt: 'not used' }, 0, 0)).toBe(true);
    await h.trigger.flush();
    expect(made).toEqual([id]);
    expect(h.queued.map((q) => q.message.rollupUntil)).toEqual([ms('09:44:00.000')]);
  });
});
