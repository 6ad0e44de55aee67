import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idTime } from '../../platform/ids.ts';
import type { ItemKey } from '../../platform/prefetch.ts';
import { durationBin } from './stats-histogram.ts';
import type { TransactItem } from '../../platform/store/conditional.ts';
import { ENTITY, keys, patterns } from '../../platform/store/keys.ts';
import { queryAll } from '../../platform/store/query.ts';
import { send, type Db } from '../../platform/store/send.ts';

/*
 * An endpoint's delivery statistics, kept off the delivery path. Nothing is counted when a delivery is made or sent:
 * a rollup (shared/webhooks/stats/stats-rollup.ts, run by the worker) reads the workspace's deliveries of each two-minute
 * bucket of creation once it is over and writes, per endpoint, the bucket's item, and at the end of each hour the
 * hour's item (`base`: counts by status, a histogram of attempt durations, the last success and failure). A
 * delivery counts as it stood `LATE_AFTER_MS` after its bucket ended (the cutoff). A change made after the cutoff (a
 * retry hours later, a manual retry, a recovery, a pause) leaves the delivery's state before it on the delivery itself
 * (`rollupStatus`, `rollupAttempts`, in the same write) and adds itself to both items (`late`), so the rollup,
 * whenever it runs, counts it once. A workspace's watermark says how far the rollup got; a statistics read counts
 * whole hours and buckets before it from these items and the rest from the deliveries.
 *
 * A delivery's creation time here is its id's: a ULID whose time is the event's, which is the delivery's `createdAt`
 * (both are the audit entry's time), so every writer knows the bucket of a delivery it has only the id of, and a
 * range of creation times is a range of keys.
 */

/** Deliveries are kept 30 days; their statistics two days more. */
export const STATS_RETENTION_SECONDS = 32 * 86_400;
/** The rollup's unit of creation time: what a read counts from deliveries at most at each edge of its span. */
export const STATS_BUCKET_MS = 120_000;
const HOUR_MS = 3_600_000;
/** A change this long after its delivery's bucket ended is late (see above); before it, the rollup sees it. */
export const LATE_AFTER_MS = 15_000;
/**
 * How long after the cutoff a bucket is rolled up: a change decided before the cutoff has been written by then (a
 * write takes milliseconds; an attempt's result is written right after it ends).
 */
export const ROLLUP_SAFETY_MS = 15_000;

/** What one change of a delivery does to its bucket's statistics; counts may be negative. */
export interface StatsChange {
  created?: number;
  succeeded?: number;
  failed?: number;
  /** One attempt's duration: one more in its bin of the histogram. */
  durationMs?: number;
  /** When a successful attempt started (the item keeps the latest it was told). */
  successAt?: string;
  /** When a failed attempt started. */
  failureAt?: string;
}

/** A span's statistics (a bucket, an hour, or deliveries counted one by one), `hour` naming it. */
export interface StatsBucket {
  hour: string;
  created: number;
  succeeded: number;
  failed: number;
  durations: number[];
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
}

/** The hour of an ISO time, as the statistics' keys name it: `2026-11-26T09` (UTC). */
export function statsHour(at: string | number): string {
  return new Date(typeof at === 'number' ? at : Date.parse(at)).toISOString().slice(0, 13);
}

/** The start (epoch ms) of the bucket of `ms`. */
export const bucketStart = (ms: number) => ms - (((ms % STATS_BUCKET_MS) + STATS_BUCKET_MS) % STATS_BUCKET_MS);
/** The start of the hour of `ms`. */
export const hourStart = (ms: number) => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
/** A bucket's name in its key: its start to the minute, `2026-11-26T09:02`. */
export const bucketName = (ms: number) => new Date(bucketStart(ms)).toISOString().slice(0, 16);

/** When a delivery was created, for its statistics: its id's time (see above). */
export const creationOf = (deliveryId: string) => idTime(deliveryId);

/** When changes of a delivery created at `createdAt` (epoch ms) become late. */
export const cutoffOf = (createdAt: number) => bucketStart(createdAt) + STATS_BUCKET_MS + LATE_AFTER_MS;

/** True when a change at `now` of the delivery `deliveryId` is late. */
export const isLate = (deliveryId: string, now: number) => now >= cutoffOf(creationOf(deliveryId));

/** The end of the last bucket that may be rolled up at `now`. */
export const rollableUntil = (now: number) => bucketStart(now - LATE_AFTER_MS - ROLLUP_SAFETY_MS);

/*
 * Item layout, the same for buckets and hours: `n`, `s`, `f` (created, succeeded, failed), `d0`…`d14` (attempts per
 * duration bin) and `sAt`, `fAt` (last success and failure) as the rollup counted them (absent: none), and the same
 * prefixed `x` for late changes. Short names, because a 30-day read reads 720 hours.
 */
export const COUNTS = { created: 'n', succeeded: 's', failed: 'f' } as const;
export const TIMES = { successAt: 'sAt', failureAt: 'fAt' } as const;

/** The two items a change of a delivery created at `createdAt` (epoch ms) lands in: its bucket's and its hour's. */
export function itemsOf(workspaceId: string, endpointId: string, createdAt: number) {
  const ttl = (start: number) => Math.floor(start / 1000) + STATS_RETENTION_SECONDS;
  return [
    {
      key: keys.deliveryStatsBucket(workspaceId, endpointId, bucketName(createdAt)),
      type: ENTITY.deliveryStatsBucket,
      ttl: ttl(bucketStart(createdAt)),
    },
    { key: keys.deliveryStats(workspaceId, endpointId, statsHour(createdAt)), type: ENTITY.deliveryStats, ttl: ttl(hourStart(createdAt)) },
  ];
}

export type Target = ReturnType<typeof itemsOf>[number];

/** An UpdateItem input of one item: `actions` (its type and TTL set too), its values (placeholders by field). */
export const update = (db: Db, target: Target, actions: string, values: Record<string, unknown>): NonNullable<TransactItem['Update']> => ({
  TableName: db.tableName,
  Key: target.key,
  UpdateExpression: actions,
  ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
  ExpressionAttributeValues: { ...values, ':type': target.type, ':ttl': target.ttl },
});

/** The UpdateItem input adding a late change to one item: unconditional ADDs (the first one creates the item). */
function lateUpdate(db: Db, target: Target, change: StatsChange): NonNullable<TransactItem['Update']> {
  const values: Record<string, unknown> = {};
  const add: string[] = [];
  const set = ['#type = :type', '#ttl = :ttl'];
  const deltas: [string, string, number | undefined][] = Object.entries(COUNTS).map(([field, name]) => [
    field,
    name,
    change[field as keyof typeof COUNTS],
  ]);
  if (change.durationMs !== undefined) deltas.push([`d${durationBin(change.durationMs)}`, `d${durationBin(change.durationMs)}`, 1]);
  for (const [field, name, delta] of deltas) if (delta) (values[`:${field}`] = delta), add.push(`x${name} :${field}`);
  // Last write wins: two late attempts finishing together may leave the earlier time (by milliseconds).
  for (const [field, name] of Object.entries(TIMES)) {
    const at = change[field as keyof typeof TIMES];
    if (at !== undefined) (values[`:${field}`] = at), set.push(`x${name} = :${field}`);
  }
  return update(db, target, `${add.length > 0 ? `ADD ${add.join(', ')} ` : ''}SET ${set.join(', ')}`, values);
}

/**
 * A late change of deliveries created at `createdAt` (epoch ms) as transaction items (its hour's and its bucket's):
 * for writes that must count exactly (a manual retry).
 */
export function lateStatsChange(db: Db, workspaceId: string, endpointId: string, createdAt: number, change: StatsChange): TransactItem[] {
  return itemsOf(workspaceId, endpointId, createdAt)
    .reverse()
    .map((target) => ({ Update: lateUpdate(db, target, change) }));
}

/**
 * A late change as two UpdateItems, sent after the delivery's own write: a function that stops between them loses
 * this one change (as it would lose any count written apart from the delivery).
 */
export async function recordLateStats(
  db: Db,
  workspaceId: string,
  endpointId: string,
  createdAt: number,
  change: StatsChange,
): Promise<void> {
  await Promise.all(
    itemsOf(workspaceId, endpointId, createdAt).map((target) => send(db, new UpdateCommand(lateUpdate(db, target, change)))),
  );
}

/** The later of two ISO times (either may be missing). */
export const later = (a: string | null, b: string | null) => (a === null || (b !== null && b > a) ? b : a);

/** The keys of every statistics item of an endpoint (its hours and buckets): what deleting the endpoint removes. */
export async function statsKeysOfEndpoint(db: Db, workspaceId: string, endpointId: string): Promise<ItemKey[]> {
  const [hours, buckets] = await Promise.all([
    queryAll<ItemKey>(db, patterns.deliveryStatsOfEndpoint(workspaceId, endpointId), { projection: ['PK', 'SK'] }),
    queryAll<ItemKey>(db, patterns.deliveryStatsBucketsOfEndpoint(workspaceId, endpointId), { projection: ['PK', 'SK'] }),
  ]);
  return [...hours, ...buckets];
}
