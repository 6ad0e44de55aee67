import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { StatsRollupStore } from './stats-rollup-store.ts';
import { addUp, countDelivery, emptyBucket } from './stats-counting.ts';
import { bucketStart, creationOf, hourStart, rollableUntil, type StatsBucket } from './delivery-stats-store.ts';
import type { StatsRollupMessage } from '../deliveries/delivery-message.ts';

const HOUR_MS = 3_600_000;

export interface StatsRollupDeps {
  store: Pick<
    StatsRollupStore,
    'rollupWatermark' | 'oldestDeliveryAt' | 'advanceWatermark' | 'deliveriesCreated' | 'writeRollup' | 'rolledBuckets'
  >;
  /** Queues the rest of a rollup that ran out of time (the worker runs it). */
  continueRollup: (message: StatsRollupMessage) => Promise<void>;
  clock: Clock;
  log: Logger;
  /** How long one message rolls up (an hour of buckets at a time) before it hands the rest to another. @default 10 000 */
  budgetMs?: number;
}

export type RollupOutcome = 'current' | 'rolled' | 'continued' | 'lost' | 'stalled';

/** What a step counted: per endpoint, per bucket start. */
type Counted = Map<string, Map<number, StatsBucket>>;

/** Writes at once, at most this many in flight. */
const WRITES_IN_FLIGHT = 10;

async function inLanes(tasks: (() => Promise<unknown>)[]): Promise<void> {
  const lane = async () => {
    for (let task = tasks.shift(); task; task = tasks.shift()) await task();
  };
  await Promise.all(Array.from({ length: Math.min(WRITES_IN_FLIGHT, tasks.length) }, lane));
}

/** The endpoints with deliveries counted in [from, to). */
function endpointsIn(counted: Counted, from: number, to: number): string[] {
  return [...counted]
    .filter(([, buckets]) => [...buckets.keys()].some((start) => start >= from && start < to))
    .map(([endpoint]) => endpoint);
}

/**
 * The statistics rollup of one workspace (see shared/webhooks/stats/delivery-stats-store.ts), one queue message at a time: from its
 * watermark (or its oldest delivery) to the bucket the message names, as far as the cutoff and the safety margin
 * allow. Each step reads the deliveries of the rest of an hour at most, counts each as it stood at its bucket's
 * cutoff, writes every endpoint's bucket items, then the hour's items if the step finished it (its buckets added up:
 * those of this step, and those earlier steps wrote), then moves the watermark on from where it read it. Everything
 * it writes is a fixed value, so a step run again after a crash, or twice at once (a message seen twice), writes the
 * same, and only one of them moves the watermark. After `budgetMs` the rest goes to another message.
 */
export function makeStatsRollup(deps: StatsRollupDeps) {
  const { store, clock } = deps;
  const budgetMs = deps.budgetMs ?? 10_000;

  /** Reads the deliveries of [from, to) and counts them by endpoint and bucket. */
  async function readStep(ws: string, from: number, to: number): Promise<Counted> {
    const counted: Counted = new Map();
    for (const item of await store.deliveriesCreated(ws, from, to)) {
      const createdAt = creationOf(item.id as string);
      const buckets = counted.get(item.endpointId as string) ?? new Map<number, StatsBucket>();
      counted.set(item.endpointId as string, buckets);
      const start = bucketStart(createdAt);
      const totals = buckets.get(start) ?? emptyBucket('bucket');
      buckets.set(start, totals);
      countDelivery(totals, item, true);
    }
    return counted;
  }

  /**
   * Writes a step's buckets, then the hours it finished; answers the endpoints with buckets in the hour `to` is in
   * (what that hour's rollup will add up besides its own).
   */
  async function writeStep(ws: string, from: number, to: number, counted: Counted, hourEndpoints: readonly string[]): Promise<string[]> {
    const buckets = [...counted].flatMap(([endpoint, starts]) =>
      [...starts]
        .filter(([, t]) => t.created > 0)
        .map(
          ([start, t]) =>
            () =>
              store.writeRollup(ws, endpoint, start, t, 'bucket'),
        ),
    );
    await inLanes(buckets);
    const hours: (() => Promise<void>)[] = [];
    for (let hour = hourStart(from); hour + HOUR_MS <= to; hour += HOUR_MS) {
      const earlier = hour < from;
      for (const endpoint of new Set([...(earlier ? hourEndpoints : []), ...endpointsIn(counted, hour, hour + HOUR_MS)])) {
        hours.push(async () => {
          const totals = earlier ? await store.rolledBuckets(ws, endpoint, hour, from) : emptyBucket('hour');
          for (const [start, t] of counted.get(endpoint) ?? []) if (start >= hour && start < hour + HOUR_MS) addUp(totals, t);
          if (totals.created > 0) await store.writeRollup(ws, endpoint, hour, totals, 'hour');
        });
      }
    }
    await inLanes(hours);
    const open = hourStart(to);
    if (open === to) return [];
    return [...new Set([...(open < from ? hourEndpoints : []), ...endpointsIn(counted, open, to)])];
  }

  return async (message: StatsRollupMessage): Promise<RollupOutcome> => {
    const ws = message.workspaceId;
    const started = clock.now();
    const target = Math.min(bucketStart(message.rollupUntil), rollableUntil(started));
    const mark = await store.rollupWatermark(ws);
    let from = mark?.rolledTo ?? bucketStart((await store.oldestDeliveryAt(ws)) ?? target);
    if (from >= target) return 'current';
    let rolledTo = mark?.rolledTo;
    let hourEndpoints = mark?.hourEndpoints ?? [];
    for (;;) {
      let to = Math.min(target, hourStart(from) + HOUR_MS);
      const counted = await readStep(ws, from, to);
      hourEndpoints = await writeStep(ws, from, to, counted, hourEndpoints);
      // An hour with no delivery and none before in it: on to the hour of the next delivery (a workspace quiet for days).
      if (counted.size === 0 && hourEndpoints.length === 0 && to < target)
        to = hourStart((await store.oldestDeliveryAt(ws, { from: to, to: target })) ?? target);
      // Another rollup of the same buckets moved it first: it wrote the same, and goes on from there.
      if (!(await store.advanceWatermark(ws, rolledTo, to, hourEndpoints, clock.now()))) return 'lost';
      from = rolledTo = to;
      if (from >= target) return 'rolled';
      if (clock.now() - started < budgetMs) continue;
      try {
        await deps.continueRollup({ workspaceId: ws, rollupUntil: target });
        return 'continued';
      } catch (error) {
        // The next bucket's message carries on from the watermark.
        deps.log.warn('statistics rollup could not queue its next step', { errorName: (error as Error).name });
        return 'stalled';
      }
    }
  };
}
