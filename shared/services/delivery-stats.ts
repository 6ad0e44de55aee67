import type { Principal } from '../auth/principal.ts';
import { assertMayOperateDeliveries } from '../auth/refusals.ts';
import { iso, type Clock } from '../clock.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { percentileOf } from '../stats-histogram.ts';
import { statsHour, type StatsBucket } from '../store/delivery-stats.ts';
import type { Store } from '../store/index.ts';

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

/** The later of two ISO times (either may be missing). */
const later = (a: string | null, b: string | null) => (a === null || (b !== null && b > a) ? b : a);

/** A percentile in whole milliseconds, or null. */
const wholeMs = (value: number | null) => (value === null ? null : Math.round(value));

/**
 * The answer from the hours counted since `since`. Each hour is read on its own terms first: a count below zero is
 * none, and its pending deliveries are those created and not yet finished, never fewer than none (a count lost
 * between a delivery's write and its statistics' write cannot make another hour's count smaller).
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

export interface DeliveryStatsServiceDeps {
  store: Pick<Store, 'getEndpoint' | 'deliveryStatsSince'>;
  clock: Clock;
}

/** An endpoint's delivery statistics, from its hourly counters. */
export function makeDeliveryStatsService(deps: DeliveryStatsServiceDeps) {
  const { store, clock } = deps;
  return {
    /**
     * Deliveries of the endpoint created since `since` (epoch ms; default 24 hours ago), moved back to the start of
     * its hour: what the hourly counters can tell apart, and what the answer's `since` says was counted. The
     * endpoint and its hours are read side by side; the hours are in the caller's own workspace partition, so
     * nothing of another workspace's is read before NOT_FOUND.
     */
    async stats(principal: Principal, endpointId: string, since: number | undefined): Promise<DeliveryStats> {
      assertMayOperateDeliveries(principal);
      const now = clock.now();
      const requested = since ?? now - DEFAULT_STATS_SPAN_MS;
      checkSince(requested, now);
      const fromHour = statsHour(requested);
      const [endpoint, buckets] = await Promise.all([
        store.getEndpoint(principal.workspaceId, endpointId),
        store.deliveryStatsSince(principal.workspaceId, endpointId, fromHour),
      ]);
      if (!endpoint) throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
      return statsAnswer(buckets, iso(Date.parse(`${fromHour}:00:00.000Z`)));
    },
  };
}

export type DeliveryStatsService = ReturnType<typeof makeDeliveryStatsService>;
