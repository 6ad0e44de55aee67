import { ulid } from 'ulid';
import type { StatsBucket } from '../../../shared/webhooks/stats/delivery-stats-store.ts';
import { creationOf } from '../../../shared/webhooks/stats/delivery-stats-store.ts';
import type { StatsRollupDeps } from '../../../shared/webhooks/stats/stats-rollup.ts';
import { DURATION_BINS } from '../../../shared/webhooks/stats/stats-histogram.ts';

/**
 * An in-memory model of what the statistics rollup reads and writes: the workspace's deliveries (as the table holds
 * them, in id order, read a few to a page), the bucket and hour items it writes, and the watermark,
 * each write keeping the condition the real store puts on it.
 */

export const WS = 'ws_01JX0000000000000000000000';

/** A delivery item created at `at` (ISO) to `endpointId`, `status` now, with attempts of these durations (ms). */
export function deliveryItem(
  endpointId: string,
  at: string,
  status: 'pending' | 'success' | 'failed',
  attempts: number[] = [],
  extra: Record<string, unknown> = {},
) {
  const created = Date.parse(at);
  return {
    id: `whd_${ulid(created)}`,
    endpointId,
    status,
    attemptLog: attempts.map((durationMs, i) => ({
      attempt: i + 1,
      at: new Date(created + 1000 * (i + 1)).toISOString(),
      statusCode: null,
      durationMs,
      error: i === attempts.length - 1 && status === 'success' ? null : 'HTTP 503',
    })),
    ...extra,
  };
}

type Item = ReturnType<typeof deliveryItem>;
type Watermark = { rolledTo: number; hourEndpoints: string[] };

/** The model; `reads` records each range of creation times read. */
export function rollupModel(deliveries: Item[]) {
  const written = new Map<string, StatsBucket>();
  const reads: string[] = [];
  const writes: string[] = [];
  let watermark: Watermark | undefined;
  const sorted = () => [...deliveries].sort((a, b) => (a.id < b.id ? -1 : 1));
  const name = (level: string, endpoint: string, start: number) => `${level} ${endpoint} ${new Date(start).toISOString()}`;

  const store: StatsRollupDeps['store'] = {
    async rollupWatermark() {
      return watermark && { rolledTo: watermark.rolledTo, hourEndpoints: [...watermark.hourEndpoints] };
    },
    async oldestDeliveryAt(_ws, span) {
      const oldest = sorted().find((d) => !span || (creationOf(d.id) >= span.from && creationOf(d.id) < span.to));
      return oldest && creationOf(oldest.id);
    },
    async advanceWatermark(_ws, from, to, hourEndpoints) {
      if (watermark?.rolledTo !== from) return false;
      watermark = { rolledTo: to, hourEndpoints: [...hourEndpoints] };
      return true;
    },
    async deliveriesCreated(_ws, from, to) {
      reads.push(`${new Date(from).toISOString()}..${new Date(to).toISOString()}`);
      return sorted()
        .filter((d) => creationOf(d.id) >= from && creationOf(d.id) < to)
        .map((d) => structuredClone(d) as Record<string, unknown>);
    },
    async writeRollup(_ws, endpointId, start, totals, level) {
      writes.push(name(level, endpointId, start));
      written.set(name(level, endpointId, start), structuredClone(totals));
    },
    async rolledBuckets(_ws, endpointId, from, to) {
      const sum: StatsBucket = {
        hour: '',
        created: 0,
        succeeded: 0,
        failed: 0,
        durations: new Array(DURATION_BINS).fill(0),
        lastSuccessAt: null,
        lastFailureAt: null,
      };
      for (const [key, t] of written) {
        const [level, endpoint, at] = key.split(' ');
        if (level !== 'bucket' || endpoint !== endpointId || Date.parse(at!) < from || Date.parse(at!) >= to) continue;
        sum.created += t.created;
        sum.succeeded += t.succeeded;
        sum.failed += t.failed;
        t.durations.forEach((n, bin) => (sum.durations[bin]! += n));
      }
      return sum;
    },
  };
  return {
    store,
    writes,
    reads,
    /** What was written for `level` of `endpoint` at `at` (ISO), as counts (created, succeeded, failed). */
    counts: (level: 'bucket' | 'hour', endpoint: string, at: string) => {
      const t = written.get(name(level, endpoint, Date.parse(at)));
      return t && { created: t.created, succeeded: t.succeeded, failed: t.failed };
    },
    totals: (level: 'bucket' | 'hour', endpoint: string, at: string) => written.get(name(level, endpoint, Date.parse(at))),
    watermark: () => watermark,
  };
}
