import type { AttemptEntry, DeliveryStatus } from '../deliveries/delivery-records.ts';
import { later, type StatsBucket } from './delivery-stats-store.ts';
import { DURATION_BINS, durationBin } from './stats-histogram.ts';

/*
 * Counting deliveries into a span's statistics: what the rollup does for each bucket, and a statistics read for the
 * deliveries at the edges of its span past the watermark. Pure: the stores read the deliveries and items.
 */

/** A delivery as counting sees it. */
interface Countable {
  endpointId: string;
  status: DeliveryStatus;
  attemptLog?: AttemptEntry[];
  /** Its state at its bucket's cutoff, left by its first late change (`none`: it was created late). */
  rollupStatus?: DeliveryStatus | 'none';
  rollupAttempts?: number;
}

/** Nothing counted, under `name`. */
export const emptyBucket = (name: string): StatsBucket => ({
  hour: name,
  created: 0,
  succeeded: 0,
  failed: 0,
  durations: new Array<number>(DURATION_BINS).fill(0),
  lastSuccessAt: null,
  lastFailureAt: null,
});

/**
 * Adds one delivery to `totals`: as it stands now, or (`atCutoff`) as it stood at its bucket's cutoff, which its
 * first late change left on it: a status, and how many of its attempts had been made.
 */
export function countDelivery(totals: StatsBucket, item: Record<string, unknown>, atCutoff: boolean): void {
  const delivery = item as unknown as Countable;
  const frozen = atCutoff && delivery.rollupStatus !== undefined;
  const status = frozen ? delivery.rollupStatus! : delivery.status;
  if (status === 'none') return;
  const log = delivery.attemptLog ?? [];
  const attempts = frozen ? log.slice(0, delivery.rollupAttempts ?? 0) : log;
  totals.created += 1;
  if (status === 'success') totals.succeeded += 1;
  if (status === 'failed') totals.failed += 1;
  for (const attempt of attempts) {
    totals.durations[durationBin(attempt.durationMs)]! += 1;
    if (attempt.error === null) totals.lastSuccessAt = later(totals.lastSuccessAt, attempt.at);
    else totals.lastFailureAt = later(totals.lastFailureAt, attempt.at);
  }
}

/** Adds `part` to `totals`. */
export function addUp(totals: StatsBucket, part: StatsBucket): void {
  totals.created += part.created;
  totals.succeeded += part.succeeded;
  totals.failed += part.failed;
  part.durations.forEach((n, bin) => (totals.durations[bin]! += n));
  totals.lastSuccessAt = later(totals.lastSuccessAt, part.lastSuccessAt);
  totals.lastFailureAt = later(totals.lastFailureAt, part.lastFailureAt);
}
