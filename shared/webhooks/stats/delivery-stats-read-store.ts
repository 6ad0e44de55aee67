import { ID_PREFIXES, ulidCeil, ulidFloor } from '../../platform/ids.ts';
import { DURATION_BINS } from './stats-histogram.ts';
import { countDelivery, emptyBucket } from './stats-counting.ts';
import { inWorkspace } from '../deliveries/delivery-shared-store.ts';
import { bucketName, COUNTS, later, STATS_BUCKET_MS, statsHour, TIMES, type StatsBucket } from './delivery-stats-store.ts';
import { keys, patterns } from '../../platform/store/keys.ts';
import { queryAll } from '../../platform/store/query.ts';
import { batchRead, getItem } from '../../platform/store/reads.ts';
import type { Db } from '../../platform/store/send.ts';
import type { ItemKey } from '../../platform/prefetch.ts';

/*
 * What the statistics route reads (an endpoint's hours and buckets, the workspace's watermark, and the deliveries at
 * the edges of its span past the watermark, counted one by one), and the reads of items the rollup shares.
 */

const HOUR_MS = 3_600_000;

/** The attributes of a delivery that counting reads (its creation time is its id's). */
export const COUNTED_ATTRIBUTES = ['id', 'endpointId', 'status', 'attemptLog', 'rollupStatus', 'rollupAttempts'] as const;

/** The ids of deliveries created in [from, to) (epoch ms), as a sort-key range. */
export function idRangeOf(from: number, to: number): [string, string] {
  return [`${ID_PREFIXES.delivery}_${ulidFloor(from)}`, `${ID_PREFIXES.delivery}_${ulidCeil(to - 1)}`];
}

/**
 * The endpoint's deliveries created in [from, to), counted as they stand now: their ids from its log (GSI3, keys
 * only), then their records (BatchGetItem, eventually consistent like the log, 0.5 RRU each). Undefined, with no
 * record read, when the log holds more than `limit` of them.
 */
export async function countDeliveries(
  db: Db,
  workspaceId: string,
  endpointId: string,
  from: number,
  to: number,
  limit: number,
): Promise<StatsBucket | undefined> {
  const totals = emptyBucket('deliveries');
  if (from >= to) return totals;
  const logged = await queryAll<ItemKey>(db, patterns.deliveriesByEndpoint(endpointId), {
    skBetween: idRangeOf(from, to),
    projection: ['PK', 'SK'],
    maxItems: limit + 1,
  });
  if (logged.length > limit) return undefined;
  // The log is per endpoint, and endpoint ids are unique: a key outside the caller's workspace is never read.
  const records = await batchRead(db, inWorkspace(workspaceId, logged), { consistent: false, projection: COUNTED_ATTRIBUTES });
  for (const record of records.values()) if (record) countDelivery(totals, record, false);
  return totals;
}

/** Any number an item holds, or 0. */
const count = (value: unknown) => (typeof value === 'number' ? value : 0);
const time = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * A stored bucket or hour as a read counts it: what the rollup counted plus the late changes, or (`late: false`)
 * only what the rollup counted, which is what an hour's rollup adds up (its late changes are in the hour already).
 */
export function toBucket(item: Record<string, unknown>, name: string, late = true): StatsBucket {
  const sum = (attribute: string) => count(item[attribute]) + (late ? count(item[`x${attribute}`]) : 0);
  const last = (attribute: string) => later(time(item[attribute]), late ? time(item[`x${attribute}`]) : null);
  return {
    hour: name,
    created: sum(COUNTS.created),
    succeeded: sum(COUNTS.succeeded),
    failed: sum(COUNTS.failed),
    durations: Array.from({ length: DURATION_BINS }, (_, bin) => sum(`d${bin}`)),
    lastSuccessAt: last(TIMES.successAt),
    lastFailureAt: last(TIMES.failureAt),
  };
}

/** The name part of a sort key after its pattern's prefix. */
const nameAfter = (prefix: string) => (item: Record<string, unknown>) => (item.SK as string).slice(prefix.length);

/** An endpoint's hours in [from, to) (hour starts, epoch ms): one Query, eventually consistent. */
export async function readHours(db: Db, workspaceId: string, endpointId: string, from: number, to: number): Promise<StatsBucket[]> {
  if (from >= to) return [];
  const pattern = patterns.deliveryStatsOfEndpoint(workspaceId, endpointId);
  const items = await queryAll<Record<string, unknown>>(db, pattern, {
    skBetween: [`${pattern.skPrefix}${statsHour(from)}`, `${pattern.skPrefix}${statsHour(to - HOUR_MS)}`],
  });
  return items.map((item) => toBucket(item, nameAfter(pattern.skPrefix)(item)));
}

/** An endpoint's buckets in [from, to) (bucket starts), as stored; `consistent` for the rollup's own reads. */
export async function readBucketItems(
  db: Db,
  workspaceId: string,
  endpointId: string,
  from: number,
  to: number,
  consistent = false,
): Promise<Record<string, unknown>[]> {
  if (from >= to) return [];
  const pattern = patterns.deliveryStatsBucketsOfEndpoint(workspaceId, endpointId);
  return queryAll<Record<string, unknown>>(db, pattern, {
    skBetween: [`${pattern.skPrefix}${bucketName(from)}`, `${pattern.skPrefix}${bucketName(to - STATS_BUCKET_MS)}`],
    consistent,
  });
}

/** A workspace's watermark: statistics of deliveries created before `rolledTo` are in items. */
export interface StatsWatermark {
  rolledTo: number;
  /** Endpoints with buckets in the hour `rolledTo` is in (what that hour's rollup adds up). */
  hourEndpoints: string[];
}

/**
 * The workspace's watermark, or undefined before its first rollup: read consistently by the rollup, eventually by a
 * statistics read (`consistent: false`: an older one only moves more of the span to the deliveries).
 */
export async function readWatermark(
  db: Db,
  workspaceId: string,
  options: { consistent?: boolean } = {},
): Promise<StatsWatermark | undefined> {
  const item = await getItem(db, keys.deliveryStatsWatermark(workspaceId), options);
  if (!item) return undefined;
  const endpoints = item.hourEndpoints as Set<string> | undefined;
  return { rolledTo: item.rolledTo as number, hourEndpoints: endpoints ? [...endpoints] : [] };
}

/** What the statistics route reads. */
export function makeDeliveryStatsReader(db: Db) {
  return {
    /** How far the workspace's statistics are rolled up, or undefined before its first rollup. */
    statsWatermark: (workspaceId: string): Promise<Pick<StatsWatermark, 'rolledTo'> | undefined> =>
      readWatermark(db, workspaceId, { consistent: false }),
    /** An endpoint's hours in [from, to) (hour starts, epoch ms). */
    statsHours: (workspaceId: string, endpointId: string, from: number, to: number) => readHours(db, workspaceId, endpointId, from, to),
    /** An endpoint's buckets in [from, to) (bucket starts). */
    async statsBuckets(workspaceId: string, endpointId: string, from: number, to: number): Promise<StatsBucket[]> {
      const prefix = patterns.deliveryStatsBucketsOfEndpoint(workspaceId, endpointId).skPrefix;
      return (await readBucketItems(db, workspaceId, endpointId, from, to)).map((item) =>
        toBucket(item, (item.SK as string).slice(prefix.length)),
      );
    },
    /** The endpoint's deliveries created in [from, to), counted one by one; undefined past `limit` of them. */
    countEndpointDeliveries: (workspaceId: string, endpointId: string, from: number, to: number, limit: number) =>
      countDeliveries(db, workspaceId, endpointId, from, to, limit),
  };
}

export type DeliveryStatsReader = ReturnType<typeof makeDeliveryStatsReader>;
