import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import {
  makeDeliveryStatsService,
  MAX_COUNTED_DELIVERIES,
  planSpan,
  statsAnswer,
  type DeliveryStatsServiceDeps,
} from '../../../../shared/webhooks/stats/delivery-stats-service.ts';
import { DURATION_BINS } from '../../../../shared/webhooks/stats/stats-histogram.ts';
import type { StatsBucket } from '../../../../shared/webhooks/stats/delivery-stats-store.ts';
import { caught, fakeClock, HOUR, MINUTE, principal, T0 } from '../../support/fakes.ts';
import { endpoint } from '../pipeline-support.ts';

const DAY = 24 * HOUR;
const SINCE = '2026-03-01T09:00:00.000Z';

/** An hour's statistics: nothing counted unless given. */
function bucket(overrides: Partial<StatsBucket> = {}): StatsBucket {
  return {
    hour: '2026-03-01T09',
    created: 0,
    succeeded: 0,
    failed: 0,
    durations: new Array(DURATION_BINS).fill(0),
    lastSuccessAt: null,
    lastFailureAt: null,
    ...overrides,
  };
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
    expect(statsAnswer([bucket({ created: 2 })], SINCE)).toMatchObject({
      deliveries: 2,
      pending: 2,
      successRate: null,
      p50DurationMs: null,
      p95DurationMs: null,
    });
    expect(statsAnswer([], SINCE)).toEqual({
      since: SINCE,
      deliveries: 0,
      succeeded: 0,
      failed: 0,
      pending: 0,
      successRate: null,
      p50DurationMs: null,
      p95DurationMs: null,
      lastSuccessAt: null,
      lastFailureAt: null,
    });
  });

  it('a rate of 0 and of 1 are numbers, not null', () => {
    expect(statsAnswer([bucket({ created: 2, failed: 2 })], SINCE).successRate).toBe(0);
    expect(statsAnswer([bucket({ created: 2, succeeded: 2 })], SINCE).successRate).toBe(1);
  });

  it("clamps each hour on its own: a lost count leaves no negative pending, and cannot shrink another hour's pending", () => {
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
      bucket({
        created: 1,
        succeeded: 1,
        lastSuccessAt: '2026-03-01T09:59:00.000Z',
        lastFailureAt: '2026-03-01T10:30:00.000Z',
        durations: durations({ 3: 10 }),
      }),
      bucket({ hour: '2026-03-01T10', created: 1, succeeded: 1, lastSuccessAt: '2026-03-01T10:05:00.000Z' }),
    ];
    const answer = statsAnswer(hours, SINCE);
    expect(answer).toMatchObject({ lastSuccessAt: '2026-03-01T10:05:00.000Z', lastFailureAt: '2026-03-01T10:30:00.000Z' });
    // Ten in 50 to 100 ms: the median is 75, the 95th 97.5, rounded to 98.
    expect(answer).toMatchObject({ p50DurationMs: 75, p95DurationMs: 98 });
  });
});

/** The service over one endpoint `we_01` of `ws_test` whose workspace is rolled up to `rolledTo`; what it read is recorded. */
function harness(
  options: {
    now?: number;
    rolledTo?: number;
    parts?: Partial<Record<'hours' | 'buckets' | 'counted', StatsBucket>>;
    tooMany?: boolean;
  } = {},
) {
  const read: string[] = [];
  const rollups: string[] = [];
  const span = (from: number, to: number) => `${iso(from)}..${iso(to)}`;
  const store: DeliveryStatsServiceDeps['store'] = {
    getEndpoint: async (ws, id) => (ws === 'ws_test' && id === 'we_01' ? endpoint() : undefined),
    statsWatermark: async () => (options.rolledTo === undefined ? undefined : { rolledTo: options.rolledTo }),
    async statsHours(_ws, _endpoint, from, to) {
      read.push(`hours ${span(from, to)}`);
      return options.parts?.hours ? [options.parts.hours] : [];
    },
    async statsBuckets(_ws, _endpoint, from, to) {
      read.push(`buckets ${span(from, to)}`);
      return options.parts?.buckets ? [options.parts.buckets] : [];
    },
    async countEndpointDeliveries(_ws, _endpoint, from, to, limit) {
      read.push(`counted ${span(from, to)} up to ${limit}`);
      return options.tooMany ? undefined : (options.parts?.counted ?? bucket());
    },
  };
  const requestRollup = async (message: { workspaceId: string }) => void rollups.push(message.workspaceId);
  return {
    service: makeDeliveryStatsService({ store, clock: fakeClock(options.now ?? T0), requestRollup }),
    read,
    rollups,
    caller: principal(),
  };
}

describe('delivery statistics: the service', () => {
  it('by default counts from 24 hours ago to the millisecond, and says so', async () => {
    // Prepare: now is 10:20:07.5; nothing rolled up yet, so every delivery since is counted one by one
    const h = harness({ now: T0 + 20 * MINUTE + 7_500, parts: { counted: bucket({ created: 1, succeeded: 1 }) } });
    // Act
    const answer = await h.service.stats(h.caller, 'we_01', undefined);
    // Assess
    expect(h.read).toEqual([`counted 2026-03-01T10:20:07.500Z..2026-03-02T10:22:07.500Z up to ${MAX_COUNTED_DELIVERIES}`]);
    expect(answer).toMatchObject({ since: '2026-03-01T10:20:07.500Z', deliveries: 1, succeeded: 1 });
  });

  it('counts a given since as given', async () => {
    const h = harness();
    const answer = await h.service.stats(h.caller, 'we_01', Date.parse('2026-02-20T17:59:59.999Z'));
    expect(h.read[0]).toMatch(/^counted 2026-02-20T17:59:59.999Z\.\./);
    expect(answer.since).toBe('2026-02-20T17:59:59.999Z');
  });

  it('adds up the hours, the buckets at either end and the deliveries counted one by one', async () => {
    // Prepare: rolled up to 10:06 today; since 09:13:30 yesterday
    const h = harness({
      now: T0 + 7 * MINUTE,
      rolledTo: T0 + 6 * MINUTE,
      parts: {
        hours: bucket({ created: 5, succeeded: 4, failed: 1 }),
        buckets: bucket({ created: 2, succeeded: 1 }),
        counted: bucket({ created: 1 }),
      },
    });
    // Act
    const answer = await h.service.stats(h.caller, 'we_01', Date.parse('2026-03-01T09:13:30.000Z'));
    // Assess
    expect(h.read.sort()).toEqual([
      'buckets 2026-03-01T09:14:00.000Z..2026-03-01T10:00:00.000Z',
      'buckets 2026-03-02T10:00:00.000Z..2026-03-02T10:06:00.000Z',
      `counted 2026-03-01T09:13:30.000Z..2026-03-01T09:14:00.000Z up to ${MAX_COUNTED_DELIVERIES}`,
      `counted 2026-03-02T10:06:00.000Z..2026-03-02T10:09:00.000Z up to ${MAX_COUNTED_DELIVERIES}`,
      'hours 2026-03-01T10:00:00.000Z..2026-03-02T10:00:00.000Z',
    ]);
    expect(answer).toMatchObject({ deliveries: 11, succeeded: 6, failed: 1, pending: 4 });
  });

  it('takes a since of exactly 30 days ago and of now, as written a moment earlier by a client', async () => {
    const h = harness();
    await h.service.stats(h.caller, 'we_01', T0 - 30 * DAY - 5_000);
    await h.service.stats(h.caller, 'we_01', T0);
    await h.service.stats(h.caller, 'we_01', T0 + 5_000);
    expect(h.read.map((line) => line.split(' ')[1]!.split('..')[0])).toEqual([
      '2026-01-31T09:59:55.000Z',
      '2026-03-02T10:00:00.000Z',
      '2026-03-02T10:00:05.000Z',
    ]);
  });

  it.each([
    ['30 days and a minute ago', T0 - 30 * DAY - MINUTE, 'since: must be at most 30 days ago'],
    ['a minute from now', T0 + MINUTE, 'since: must not be in the future'],
  ])('refuses a since %s as VALIDATION_ERROR naming since, before reading anything', async (_, since, message) => {
    const h = harness();
    const error = await caught(() => h.service.stats(h.caller, 'we_01', since));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(h.read).toEqual([]);
  });

  it('an endpoint of another workspace (or none) is NOT_FOUND, whatever its statistics hold', async () => {
    const h = harness({ parts: { counted: bucket({ created: 3 }) } });
    expect((await caught(() => h.service.stats(h.caller, 'we_02', undefined))).code).toBe('NOT_FOUND');
    expect((await caught(() => h.service.stats(principal({ workspaceId: 'ws_other' }), 'we_01', undefined))).code).toBe('NOT_FOUND');
    expect(h.read).toEqual([]);
  });

  it('a read far behind the rollup (more deliveries to count than the limit) asks for the rollup and is SERVICE_UNAVAILABLE with Retry-After', async () => {
    const h = harness({ tooMany: true });
    const error = await caught(() => h.service.stats(h.caller, 'we_01', undefined));
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '60' } });
    expect(h.rollups).toEqual(['ws_test']);
  });
});

describe('delivery statistics: which part of a span is read how', () => {
  const at = (time: string) => Date.parse(`2026-03-02T${time}Z`);

  it('counts everything one by one before the first rollup, or when no whole bucket lies before the watermark', () => {
    expect(planSpan(at('09:00:00.000'), at('10:00:00.000'), undefined)).toEqual({
      counted: [[at('09:00:00.000'), at('10:02:00.000')]],
      buckets: [],
      hours: undefined,
    });
    expect(planSpan(at('09:59:00.000'), at('10:05:00.000'), at('10:00:00.000'))).toEqual({
      counted: [[at('09:59:00.000'), at('10:07:00.000')]],
      buckets: [],
      hours: undefined,
    });
    expect(planSpan(at('09:30:00.000'), at('10:05:00.000'), at('09:00:00.000')).counted).toEqual([
      [at('09:30:00.000'), at('10:07:00.000')],
    ]);
  });

  it('reads whole buckets within an hour, and a since on a bucket edge counts nothing one by one before them', () => {
    expect(planSpan(at('09:02:00.000'), at('09:20:00.000'), at('09:16:00.000'))).toEqual({
      counted: [[at('09:16:00.000'), at('09:22:00.000')]],
      buckets: [[at('09:02:00.000'), at('09:16:00.000')]],
      hours: undefined,
    });
  });

  it('never trusts a watermark ahead of its own clock past the current bucket', () => {
    expect(planSpan(at('09:02:00.000'), at('09:21:00.000'), at('11:00:00.000')).counted).toEqual([
      [at('09:20:00.000'), at('09:23:00.000')],
    ]);
  });

  it('reads whole hours between the buckets at the edges', () => {
    expect(planSpan(at('07:59:59.999'), at('10:07:00.000'), at('10:04:00.000'))).toEqual({
      counted: [
        [at('07:59:59.999'), at('08:00:00.000')],
        [at('10:04:00.000'), at('10:09:00.000')],
      ],
      buckets: [[at('10:00:00.000'), at('10:04:00.000')]],
      hours: [at('08:00:00.000'), at('10:00:00.000')],
    });
  });
});
