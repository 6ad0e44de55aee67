import { describe, expect, it } from 'vitest';
import { durationBin } from '../../../../shared/webhooks/stats/stats-histogram.ts';
import type { StatsRollupMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { makeStatsRollup, type StatsRollupDeps } from '../../../../shared/webhooks/stats/stats-rollup.ts';
import { fakeClock, fakeLogger } from '../../support/fakes.ts';
import { deliveryItem, rollupModel, WS } from '../stats-support.ts';

const at = (time: string) => `2026-03-02T${time}Z`;
const ms = (time: string) => Date.parse(at(time));
/** The moment a bucket ending at `end` may be rolled up: 15 s of cutoff and 15 s of safety later. */
const rollable = (end: string) => ms(end) + 30_000;

/** A rollup over `model` at `now`; continuations are collected. */
function rollup(model: ReturnType<typeof rollupModel>, now: number, options: Partial<StatsRollupDeps> = {}) {
  const continued: StatsRollupMessage[] = [];
  const clock = fakeClock(now);
  const run = makeStatsRollup({
    store: model.store,
    continueRollup: async (m) => void continued.push(m),
    clock,
    log: fakeLogger(),
    ...options,
  });
  return { run: (until: string) => run({ workspaceId: WS, rollupUntil: ms(until) }), continued, clock };
}

describe('statistics rollup: what it counts', () => {
  it("counts each endpoint's deliveries of a bucket by status, attempt durations and last times, from the workspace's oldest delivery", async () => {
    // Prepare: 09:40 to 09:42, two endpoints; one delivery of the next bucket, not over yet
    const model = rollupModel([
      deliveryItem('we_a', at('09:40:01.000'), 'success', [30]),
      deliveryItem('we_a', at('09:40:30.000'), 'failed', [40, 600]),
      deliveryItem('we_a', at('09:41:59.999'), 'pending', [20]),
      deliveryItem('we_b', at('09:41:00.000'), 'success', [5]),
      deliveryItem('we_a', at('09:42:00.000'), 'success', [30]),
    ]);
    // Act
    const outcome = await rollup(model, rollable('09:42:00.000')).run('09:44:00.000');
    // Assess
    expect(outcome).toBe('rolled');
    expect(model.counts('bucket', 'we_a', at('09:40:00.000'))).toEqual({ created: 3, succeeded: 1, failed: 1 });
    expect(model.counts('bucket', 'we_b', at('09:40:00.000'))).toEqual({ created: 1, succeeded: 1, failed: 0 });
    const a = model.totals('bucket', 'we_a', at('09:40:00.000'))!;
    expect(a.durations.reduce((x, y) => x + y, 0)).toBe(4);
    expect(a.durations[durationBin(600)]).toBe(1);
    expect([a.lastSuccessAt, a.lastFailureAt]).toEqual([at('09:40:02.000'), at('09:42:00.999')]);
    expect(model.writes).toEqual([`bucket we_a ${at('09:40:00.000')}`, `bucket we_b ${at('09:40:00.000')}`]);
    expect(model.watermark()).toEqual({ rolledTo: ms('09:42:00.000'), hourEndpoints: ['we_a', 'we_b'] });
  });

  it('counts a delivery changed after the cutoff as it stood then, and leaves out one made after it', async () => {
    // Prepare: failed twice then retried by hand after the cutoff (pending now, two of its attempts counted); one made late
    const model = rollupModel([
      deliveryItem('we_a', at('09:40:01.000'), 'pending', [40, 40, 40], { rollupStatus: 'failed', rollupAttempts: 2 }),
      deliveryItem('we_a', at('09:40:02.000'), 'success', [10], { rollupStatus: 'none', rollupAttempts: 0 }),
    ]);
    // Act
    await rollup(model, rollable('09:42:00.000')).run('09:42:00.000');
    // Assess
    expect(model.counts('bucket', 'we_a', at('09:40:00.000'))).toEqual({ created: 1, succeeded: 0, failed: 1 });
    expect(model.totals('bucket', 'we_a', at('09:40:00.000'))!.durations.reduce((x, y) => x + y, 0)).toBe(2);
  });

  it('never rolls up a bucket before its cutoff and the safety margin have passed, and answers current when nothing is due', async () => {
    const model = rollupModel([deliveryItem('we_a', at('09:40:01.000'), 'success', [30])]);
    expect(await rollup(model, rollable('09:42:00.000') - 1).run('09:42:00.000')).toBe('current');
    expect(model.writes).toEqual([]);
    expect(await rollup(model, rollable('09:42:00.000')).run('09:44:00.000')).toBe('rolled');
    expect(model.watermark()!.rolledTo).toBe(ms('09:42:00.000'));
    expect(await rollup(model, rollable('09:42:00.000')).run('09:42:00.000')).toBe('current');
  });

  it("adds an hour up once it is over: the buckets this rollup counted and those earlier ones wrote, then starts the next hour's list", async () => {
    // Prepare: deliveries of we_a early in the hour, of we_b late in it, and of we_a in the next hour
    const model = rollupModel([
      deliveryItem('we_a', at('09:01:00.000'), 'success', [30]),
      deliveryItem('we_a', at('09:31:00.000'), 'failed', [30]),
      deliveryItem('we_b', at('09:59:00.000'), 'success', [30]),
      deliveryItem('we_a', at('10:01:00.000'), 'success', [30]),
    ]);
    // Act: up to 09:40 first, then on to 10:02
    await rollup(model, rollable('09:40:00.000')).run('09:40:00.000');
    const first = model.counts('hour', 'we_a', at('09:00:00.000'));
    expect(model.watermark()!.hourEndpoints).toEqual(['we_a']);
    await rollup(model, rollable('10:02:00.000')).run('10:02:00.000');
    // Assess
    expect(first).toBeUndefined();
    expect(model.counts('hour', 'we_a', at('09:00:00.000'))).toEqual({ created: 2, succeeded: 1, failed: 1 });
    expect(model.counts('hour', 'we_b', at('09:00:00.000'))).toEqual({ created: 1, succeeded: 1, failed: 0 });
    expect(model.counts('hour', 'we_a', at('10:00:00.000'))).toBeUndefined();
    expect(model.watermark()).toMatchObject({ rolledTo: ms('10:02:00.000'), hourEndpoints: ['we_a'] });
  });
});

describe('statistics rollup: run again, twice at once, cut short', () => {
  const deliveries = () => [
    deliveryItem('we_a', at('09:40:01.000'), 'success', [30]),
    deliveryItem('we_a', at('09:41:01.000'), 'failed', [30]),
    deliveryItem('we_a', at('09:43:01.000'), 'success', [30]),
    deliveryItem('we_b', at('09:45:01.000'), 'success', [30]),
    deliveryItem('we_a', at('09:47:01.000'), 'success', [30]),
  ];

  it('a rollup retried after it died past its writes writes the same values again: nothing is counted twice', async () => {
    // Prepare: the first run writes its buckets and dies before it moves the watermark on
    const model = rollupModel(deliveries());
    const dying = { ...model.store, advanceWatermark: async () => Promise.reject(new Error('worker killed')) };
    await expect(rollup({ ...model, store: dying }, rollable('09:48:00.000')).run('09:48:00.000')).rejects.toThrow('worker killed');
    const once = model.totals('bucket', 'we_a', at('09:40:00.000'));
    // Act: the message again
    const outcome = await rollup(model, rollable('09:48:00.000')).run('09:48:00.000');
    // Assess
    expect(outcome).toBe('rolled');
    expect(model.totals('bucket', 'we_a', at('09:40:00.000'))).toEqual(once);
    expect(model.counts('bucket', 'we_a', at('09:40:00.000'))).toEqual({ created: 2, succeeded: 1, failed: 1 });
  });

  it('two messages for the same buckets at once write the same values, and one of them moves the watermark', async () => {
    // Prepare: the same buckets rolled up once, as the reference
    const once = rollupModel(deliveries());
    await rollup(once, rollable('09:48:00.000')).run('09:48:00.000');
    // Act
    const model = rollupModel(deliveries());
    const outcomes = await Promise.all([
      rollup(model, rollable('09:48:00.000')).run('09:48:00.000'),
      rollup(model, rollable('09:48:00.000')).run('09:48:00.000'),
    ]);
    // Assess
    expect(outcomes.sort()).toEqual(['lost', 'rolled']);
    for (const start of ['09:40:00.000', '09:42:00.000', '09:44:00.000', '09:46:00.000']) {
      for (const endpoint of ['we_a', 'we_b'])
        expect(model.totals('bucket', endpoint, at(start))).toEqual(once.totals('bucket', endpoint, at(start)));
    }
    expect(model.watermark()).toEqual(once.watermark());
  });

  it('steps an hour at most at a time: a rollup of a long span counts the same as rollups of its hours', async () => {
    // Prepare: deliveries over three hours, rolled up at once, and hour by hour
    const spread = () =>
      ['08:10:00.000', '08:50:00.000', '09:10:00.000', '09:59:59.999', '10:00:00.000', '10:20:00.000'].map((t) =>
        deliveryItem('we_a', at(t), 'success', [30]),
      );
    const atOnce = rollupModel(spread());
    const hourly = rollupModel(spread());
    // Act
    await rollup(atOnce, rollable('10:30:00.000')).run('10:30:00.000');
    for (const end of ['09:00:00.000', '10:00:00.000', '10:30:00.000']) await rollup(hourly, rollable(end)).run(end);
    // Assess: three reads, each within an hour; the same items either way
    expect(atOnce.reads).toEqual([
      `${at('08:10:00.000')}..${at('09:00:00.000')}`,
      `${at('09:00:00.000')}..${at('10:00:00.000')}`,
      `${at('10:00:00.000')}..${at('10:30:00.000')}`,
    ]);
    for (const hour of ['08:00:00.000', '09:00:00.000'])
      expect(atOnce.totals('hour', 'we_a', at(hour))).toEqual(hourly.totals('hour', 'we_a', at(hour)));
    expect(atOnce.counts('hour', 'we_a', at('09:00:00.000'))).toEqual({ created: 2, succeeded: 2, failed: 0 });
    expect(atOnce.watermark()).toEqual(hourly.watermark());
  });

  it('skips the hours of a quiet workspace: from an empty hour straight to the hour of its next delivery', async () => {
    // Prepare: a delivery at 08:10 on March 2nd, the next at 10:20 on March 4th
    const model = rollupModel([
      deliveryItem('we_a', at('08:10:00.000'), 'success', [30]),
      deliveryItem('we_a', '2026-03-04T10:20:00.000Z', 'failed', [30]),
    ]);
    const now = Date.parse('2026-03-04T10:30:00.000Z');
    // Act
    const outcome = await makeStatsRollup({
      store: model.store,
      continueRollup: async () => undefined,
      clock: fakeClock(now),
      log: fakeLogger(),
    })({ workspaceId: WS, rollupUntil: now });
    // Assess: the quiet hours were never read, and each delivery was counted in its own hour
    expect(outcome).toBe('rolled');
    expect(model.reads).toEqual([
      `${at('08:10:00.000')}..${at('09:00:00.000')}`,
      `${at('09:00:00.000')}..${at('10:00:00.000')}`,
      '2026-03-04T10:00:00.000Z..2026-03-04T10:28:00.000Z',
    ]);
    expect(model.counts('hour', 'we_a', at('08:00:00.000'))).toEqual({ created: 1, succeeded: 1, failed: 0 });
    expect(model.counts('bucket', 'we_a', '2026-03-04T10:20:00.000Z')).toEqual({ created: 1, succeeded: 0, failed: 1 });
  });

  it('hands the rest to another message once its time is up', async () => {
    const model = rollupModel(deliveries());
    const r = rollup(model, rollable('11:02:00.000'), { budgetMs: 0 });
    expect(await r.run('11:02:00.000')).toBe('continued');
    expect(r.continued).toEqual([{ workspaceId: WS, rollupUntil: ms('11:02:00.000') }]);
    // One step: the rest of the first hour
    expect(model.watermark()).toMatchObject({ rolledTo: ms('10:00:00.000') });
    expect(await rollup(model, rollable('11:02:00.000')).run('11:02:00.000')).toBe('rolled');
    expect(model.counts('bucket', 'we_a', at('09:46:00.000'))).toEqual({ created: 1, succeeded: 1, failed: 0 });
    expect(model.counts('hour', 'we_a', at('09:00:00.000'))).toEqual({ created: 4, succeeded: 3, failed: 1 });
  });
});
