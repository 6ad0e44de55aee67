import { describe, expect, it } from 'vitest';
import { iso } from '../../../shared/clock.ts';
import { makeDeliveryStatsService, statsAnswer, type DeliveryStatsServiceDeps } from '../../../shared/services/delivery-stats.ts';
import { DURATION_BINS } from '../../../shared/stats-histogram.ts';
import type { StatsBucket } from '../../../shared/store/delivery-stats.ts';
import { caught, fakeClock, HOUR, MINUTE, principal, T0 } from '../support/fakes.ts';
import { endpoint } from '../webhooks-pipeline/support.ts';

const DAY = 24 * HOUR;
const SINCE = '2026-03-01T09:00:00.000Z';

/** An hour's statistics: nothing counted unless given. */
function bucket(overrides: Partial<StatsBucket> = {}): StatsBucket {
  return { hour: '2026-03-01T09', created: 0, succeeded: 0, failed: 0, durations: new Array(DURATION_BINS).fill(0), lastSuccessAt: null, lastFailureAt: null, ...overrides };
}

/** Durations with `count` in `bin`. */
const durations = (counts: Record<number, number>) => Array.from({ length: DURATION_BINS }, (_, bin) => counts[bin] ?? 0);

describe('delivery statistics: the answer from hourly buckets', () => {
  it('adds the hours up: pending is created less finished, deliveries the three added up, the rate over finished ones', () => {
    // Prepare
    const hours = [
      bucket({ created: 5, succeeded: 3, failed: 1, durations: durations({ 3: 6 }) }),
      bucket({ hour: '2026-03-01T10', created: 4, succeeded: 2, failed: 0, durations: durations({ 3: 2 }) }),
    ];
    // Act
    const answer = statsAnswer(hours, SINCE);
    // Assess
    expect(answer).toEqual({
      since: SINCE,
      deliveries: 9,
      succeeded: 5,
      failed: 1,
      pending: 3,
      successRate: 5 / 6,
      p50DurationMs: 75,
      p95DurationMs: 98,
      lastSuccessAt: null,
      lastFailureAt: null,
    });
  });

  it('answers nulls when nothing finished and no attempt ran, and zeros for no hour at all', () => {
    expect(statsAnswer([bucket({ created: 2 })], SINCE)).toMatchObject({ deliveries: 2, pending: 2, successRate: null, p50DurationMs: null, p95DurationMs: null });
    expect(statsAnswer([], SINCE)).toEqual({
      since: SINCE, deliveries: 0, succeeded: 0, failed: 0, pending: 0, successRate: null, p50DurationMs: null, p95DurationMs: null, lastSuccessAt: null, lastFailureAt: null,
    });
  });

  it('a rate of 0 and of 1 are numbers, not null', () => {
    expect(statsAnswer([bucket({ created: 2, failed: 2 })], SINCE).successRate).toBe(0);
    expect(statsAnswer([bucket({ created: 2, succeeded: 2 })], SINCE).successRate).toBe(1);
  });

  it('clamps each hour on its own: a lost count leaves no negative pending, and cannot shrink another hour\'s pending', () => {
    // Prepare: hour 9 lost its `created` (more finished than created); hour 10 has one still pending.
    const hours = [bucket({ created: 1, succeeded: 2, failed: 1 }), bucket({ hour: '2026-03-01T10', created: 3, succeeded: 2 })];
    // Act
    const answer = statsAnswer(hours, SINCE);
    // Assess
    expect(answer).toMatchObject({ succeeded: 4, failed: 1, pending: 1, deliveries: 6 });
  });

  it('counts a negative succeeded or failed (a retry counted before the result it undoes) as none', () => {
    const answer = statsAnswer([bucket({ created: 1, succeeded: -1, failed: 1 })], SINCE);
    expect(answer).toMatchObject({ succeeded: 0, failed: 1, pending: 0, deliveries: 1, successRate: 0 });
  });

  it('takes the latest success and failure over every hour, and rounds percentiles to whole milliseconds', () => {
    const hours = [
      bucket({ created: 1, succeeded: 1, lastSuccessAt: '2026-03-01T09:59:00.000Z', lastFailureAt: '2026-03-01T10:30:00.000Z', durations: durations({ 3: 10 }) }),
      bucket({ hour: '2026-03-01T10', created: 1, succeeded: 1, lastSuccessAt: '2026-03-01T10:05:00.000Z' }),
    ];
    const answer = statsAnswer(hours, SINCE);
    expect(answer).toMatchObject({ lastSuccessAt: '2026-03-01T10:05:00.000Z', lastFailureAt: '2026-03-01T10:30:00.000Z' });
    // Ten in 50 to 100 ms: the median is 75, the 95th 97.5, rounded to 98.
    expect(answer).toMatchObject({ p50DurationMs: 75, p95DurationMs: 98 });
  });
});

/** The service over one endpoint `we_01` of `ws_test`, its hours read as given; what it asked for is recorded. */
function harness(hours: StatsBucket[] = [], now = T0) {
  const asked: { workspaceId: string; endpointId: string; fromHour: string }[] = [];
  const store: DeliveryStatsServiceDeps['store'] = {
    getEndpoint: async (ws, id) => (ws === 'ws_test' && id === 'we_01' ? endpoint() : undefined),
    async deliveryStatsSince(workspaceId, endpointId, fromHour) {
      asked.push({ workspaceId, endpointId, fromHour });
      return hours;
    },
  };
  return { service: makeDeliveryStatsService({ store, clock: fakeClock(now) }), asked, caller: principal() };
}

describe('delivery statistics: the service', () => {
  it('by default counts from 24 hours ago, moved back to the start of its hour, and says so', async () => {
    // Prepare: now is 10:20, so 24 hours ago is 10:20 yesterday, counted from 10:00.
    const h = harness([bucket({ created: 1, succeeded: 1 })], T0 + 20 * MINUTE);
    // Act
    const answer = await h.service.stats(h.caller, 'we_01', undefined);
    // Assess
    expect(h.asked).toEqual([{ workspaceId: 'ws_test', endpointId: 'we_01', fromHour: '2026-03-01T10' }]);
    expect(answer).toMatchObject({ since: '2026-03-01T10:00:00.000Z', deliveries: 1, succeeded: 1 });
  });

  it('moves a given since back to its hour', async () => {
    const h = harness();
    const answer = await h.service.stats(h.caller, 'we_01', Date.parse('2026-02-20T17:59:59.999Z'));
    expect(h.asked[0]!.fromHour).toBe('2026-02-20T17');
    expect(answer.since).toBe('2026-02-20T17:00:00.000Z');
  });

  it('takes a since of exactly 30 days ago and of now, as written a moment earlier by a client', async () => {
    const h = harness();
    await h.service.stats(h.caller, 'we_01', T0 - 30 * DAY - 5_000);
    await h.service.stats(h.caller, 'we_01', T0);
    await h.service.stats(h.caller, 'we_01', T0 + 5_000);
    expect(h.asked.map((a) => a.fromHour)).toEqual(['2026-01-31T09', '2026-03-02T10', '2026-03-02T10']);
  });

  it.each([
    ['30 days and a minute ago', T0 - 30 * DAY - MINUTE, 'since: must be at most 30 days ago'],
    ['a minute from now', T0 + MINUTE, 'since: must not be in the future'],
  ])('refuses a since %s as VALIDATION_ERROR naming since, before reading anything', async (_, since, message) => {
    const h = harness();
    const error = await caught(() => h.service.stats(h.caller, 'we_01', since));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(h.asked).toEqual([]);
  });

  it('an endpoint of another workspace (or none) is NOT_FOUND, whatever its hours hold', async () => {
    const h = harness([bucket({ created: 3 })]);
    expect((await caught(() => h.service.stats(h.caller, 'we_02', undefined))).code).toBe('NOT_FOUND');
    expect((await caught(() => h.service.stats(principal({ workspaceId: 'ws_other' }), 'we_01', undefined))).code).toBe('NOT_FOUND');
  });

  it('reads the since as given when it is already the start of an hour', async () => {
    const h = harness();
    expect((await h.service.stats(h.caller, 'we_01', Date.parse(SINCE))).since).toBe(iso(Date.parse(SINCE)));
  });
});
