import type { Principal } from '../../platform/principal.ts';
import { assertMayOperateDeliveries } from '../../access/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../../platform/errors.ts';
import { percentileOf } from './stats-histogram.ts';
import { bucketStart, hourStart, later, rollableUntil, STATS_BUCKET_MS, type StatsBucket } from './delivery-stats-store.ts';
import type { StatsRollupMessage } from '../deliveries/delivery-message.ts';
import type { EndpointReader } from '../endpoints/endpoint-store.ts';
import type { DeliveryStatsReader } from './delivery-stats-read-store.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The span a stats call covers by default, and at most (deliveries are kept 30 days). */
export const DEFAULT_STATS_SPAN_MS = DAY_MS;
export const MAX_STATS_SPAN_MS = 30 * DAY_MS;

/**
 * How far a `since` may pass either bound and still be taken: the caller's clock and ours differ, and "30 days ago"
 * reaches us a little later than it was written.
 */
export const SINCE_TOLERANCE_MS = 30_000;

/**
 * Deliveries a statistics read counts one by one at most, per stretch of its span. Past the rollup's watermark
 * there are a couple of minutes of deliveries; many more means the rollup is behind (a workspace never rolled up,
 * or a stalled worker): the read then asks for the rollup and answers SERVICE_UNAVAILABLE rather than read them all.
 */
export const MAX_COUNTED_DELIVERIES = 2_000;

/** An endpoint's delivery statistics as the API answers them (decisions.md, "Webhook operations"). */
export interface DeliveryStats {
  since: string;
  deliveries: number;
  succeeded: number;
  failed: number;
  pending: number;
  successRate: number | null;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
}

/** A percentile in whole milliseconds, or null. */
const wholeMs = (value: number | null) => (value === null ? null : Math.round(value));

/**
 * The answer from the spans counted since `since`. Each span is read on its own terms first: a count below zero is
 * none, and its pending deliveries are those created and not yet finished, never fewer than none (a count lost
 * between a delivery's write and its statistics' write cannot make another span's count smaller).
 */
export function statsAnswer(buckets: readonly StatsBucket[], since: string): DeliveryStats {
  let succeeded = 0;
  let failed = 0;
  let pending = 0;
  const durations: number[] = [];
  let lastSuccessAt: string | null = null;
  let lastFailureAt: string | null = null;
  for (const bucket of buckets) {
    const hourSucceeded = Math.max(0, bucket.succeeded);
    const hourFailed = Math.max(0, bucket.failed);
    succeeded += hourSucceeded;
    failed += hourFailed;
    pending += Math.max(0, bucket.created - hourSucceeded - hourFailed);
    bucket.durations.forEach((count, bin) => (durations[bin] = (durations[bin] ?? 0) + count));
    lastSuccessAt = later(lastSuccessAt, bucket.lastSuccessAt);
    lastFailureAt = later(lastFailureAt, bucket.lastFailureAt);
  }
  const finished = succeeded + failed;
  return {
    since,
    deliveries: finished + pending,
    succeeded,
    failed,
    pending,
    successRate: finished === 0 ? null : succeeded / finished,
    p50DurationMs: wholeMs(percentileOf(durations, 0.5)),
    p95DurationMs: wholeMs(percentileOf(durations, 0.95)),
    lastSuccessAt,
    lastFailureAt,
  };
}

/** Refuses a `since` more than 30 days ago or in the future (each with `SINCE_TOLERANCE_MS` of slack). */
export function checkSince(since: number, now: number): void {
  if (since < now - MAX_STATS_SPAN_MS - SINCE_TOLERANCE_MS) throw new ValidationError('since: must be at most 30 days ago');
  if (since > now + SINCE_TOLERANCE_MS) throw new ValidationError('since: must not be in the future');
}

type Span = [number, number];

/** What a read of [since, now] reads: whole hours and buckets before the watermark from their items, the rest one by one. */
export interface SpanPlan {
  /** Spans of deliveries counted one by one: the part of `since`'s bucket after it, and everything past the watermark. */
  counted: Span[];
  /** Whole buckets before the watermark, at either end of the whole hours. */
  buckets: Span[];
  hours: Span | undefined;
}

const ceilTo = (ms: number, start: (ms: number) => number, length: number) => (start(ms) === ms ? ms : start(ms) + length);

/**
 * Splits [since, now] at the watermark `rolledTo` (undefined before the workspace's first rollup). The counted span
 * past the watermark runs a bucket past `now`, so deliveries stamped by a clock a little ahead of ours count too.
 */
export function planSpan(since: number, now: number, rolledTo: number | undefined): SpanPlan {
  const plan: SpanPlan = { counted: [], buckets: [], hours: undefined };
  const firstBucket = ceilTo(since, bucketStart, STATS_BUCKET_MS);
  const watermark = Math.min(rolledTo ?? since, bucketStart(now));
  // No whole bucket between `since` and the watermark: everything is counted one by one.
  if (firstBucket >= watermark) return { ...plan, counted: [[since, now + STATS_BUCKET_MS]] };
  if (since < firstBucket) plan.counted.push([since, firstBucket]);
  const firstHour = ceilTo(firstBucket, hourStart, HOUR_MS);
  const lastHour = hourStart(watermark);
  if (firstHour < lastHour) plan.hours = [firstHour, lastHour];
  const edges: Span[] =
    firstHour < lastHour
      ? [
          [firstBucket, firstHour],
          [lastHour, watermark],
        ]
      : [[firstBucket, watermark]];
  plan.buckets = edges.filter(([from, to]) => from < to);
  plan.counted.push([watermark, now + STATS_BUCKET_MS]);
  return plan;
}

export interface DeliveryStatsServiceDeps {
  store: Pick<EndpointReader, 'getEndpoint'> &
    Pick<DeliveryStatsReader, 'statsWatermark' | 'statsHours' | 'statsBuckets' | 'countEndpointDeliveries'>;
  clock: Clock;
  /** Queues a statistics rollup now (when a read finds it far behind). */
  requestRollup: (message: StatsRollupMessage) => Promise<void>;
}

/** An endpoint's delivery statistics: rolled-up hours and buckets, and the deliveries at the edges counted one by one. */
export function makeDeliveryStatsService(deps: DeliveryStatsServiceDeps) {
  const { store, clock } = deps;

  /** Deliveries of [from, to) counted one by one, or SERVICE_UNAVAILABLE (with the rollup asked for) past the limit. */
  async function counted(workspaceId: string, endpointId: string, [from, to]: Span): Promise<StatsBucket> {
    const totals = await store.countEndpointDeliveries(workspaceId, endpointId, from, to, MAX_COUNTED_DELIVERIES);
    if (totals) return totals;
    await deps.requestRollup({ workspaceId, rollupUntil: rollableUntil(clock.now()) });
    throw new ServiceUnavailableError('delivery statistics are being brought up to date; retry in a minute', 60);
  }

  return {
    /**
     * Deliveries of the endpoint created since `since` (epoch ms; default 24 hours ago), to the millisecond. The
     * endpoint and the workspace's watermark are read side by side; every item read is in the caller's own workspace
     * partition, so nothing of another workspace's is read before NOT_FOUND.
     */
    async stats(principal: Principal, endpointId: string, since: number | undefined): Promise<DeliveryStats> {
      assertMayOperateDeliveries(principal);
      const now = clock.now();
      const from = since ?? now - DEFAULT_STATS_SPAN_MS;
      checkSince(from, now);
      const ws = principal.workspaceId;
      const [endpoint, watermark] = await Promise.all([store.getEndpoint(ws, endpointId), store.statsWatermark(ws)]);
      if (!endpoint) throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
      const plan = planSpan(from, now, watermark?.rolledTo);
      const parts = await Promise.all([
        plan.hours ? store.statsHours(ws, endpointId, ...plan.hours) : [],
        ...plan.buckets.map((span) => store.statsBuckets(ws, endpointId, ...span)),
        ...plan.counted.map(async (span) => [await counted(ws, endpointId, span)]),
      ]);
      return statsAnswer(parts.flat(), iso(from));
    },
  };
}

export type DeliveryStatsService = ReturnType<typeof makeDeliveryStatsService>;
