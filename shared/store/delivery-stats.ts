import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../prefetch.ts';
import { DURATION_BINS, durationBin } from '../stats-histogram.ts';
import type { TransactItem } from './conditional.ts';
import { ENTITY, keys, patterns } from './keys.ts';
import { queryAll } from './query.ts';
import { send, type Db } from './send.ts';

/*
 * An endpoint's delivery statistics: one item per hour of its deliveries' creation (`keys.deliveryStats`), whose
 * counters every status change of a delivery moves (created, then succeeded or failed, and back out of those on a
 * manual retry or a recovery), with a fixed histogram of attempt durations (shared/stats-histogram.ts). A delivery is
 * always counted in the hour it was created, however late its attempts run, so "created since" is exact to the hour.
 * Every change is an unconditional ADD/SET: the first one creates the item.
 */

/** Deliveries are kept 30 days; their hours' statistics two days more, so a 30-day span moved back to its hour is whole. */
export const STATS_RETENTION_SECONDS = 32 * 86_400;

/** What one status change (or one attempt) does to its hour's statistics; counts may be negative. */
export interface StatsChange {
  created?: number;
  succeeded?: number;
  failed?: number;
  /** One attempt's duration: one more in its bin of the histogram. */
  durationMs?: number;
  /** When a successful attempt started (the hour keeps the latest it was told). */
  successAt?: string;
  /** When a failed attempt started. */
  failureAt?: string;
}

/** An hour's statistics as stored (net counts by status now; `durations` holds one count per histogram bin). */
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

/** The attribute of a histogram bin. */
const binAttribute = (bin: number) => `d${bin}`;

/** The UpdateItem input of a change to the hour of `createdAt` (the delivery's creation, never the attempt's time). */
function statsUpdate(db: Db, workspaceId: string, endpointId: string, createdAt: string, change: StatsChange): NonNullable<TransactItem['Update']> {
  const hour = statsHour(createdAt);
  const names: Record<string, string> = { '#type': 'type', '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':type': ENTITY.deliveryStats, ':ttl': Date.parse(`${hour}:00:00.000Z`) / 1000 + STATS_RETENTION_SECONDS };
  const counters: Record<string, number | undefined> = {
    created: change.created,
    succeeded: change.succeeded,
    failed: change.failed,
    ...(change.durationMs === undefined ? {} : { [binAttribute(durationBin(change.durationMs))]: 1 }),
  };
  const add: string[] = [];
  for (const [name, delta] of Object.entries(counters)) {
    if (!delta) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = delta;
    add.push(`#${name} :${name}`);
  }
  const set = ['#type = :type', '#ttl = :ttl'];
  // Last write wins: two attempts of one hour finishing together may leave the earlier time (by milliseconds).
  for (const [name, at] of [['lastSuccessAt', change.successAt], ['lastFailureAt', change.failureAt]] as const) {
    if (at === undefined) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = at;
    set.push(`#${name} = :${name}`);
  }
  return {
    TableName: db.tableName,
    Key: keys.deliveryStats(workspaceId, endpointId, hour),
    UpdateExpression: `${add.length > 0 ? `ADD ${add.join(', ')} ` : ''}SET ${set.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** A change of an endpoint's statistics as a transaction item: for writes that must count exactly (a manual retry). */
export function statsChange(db: Db, workspaceId: string, endpointId: string, createdAt: string, change: StatsChange): TransactItem {
  return { Update: statsUpdate(db, workspaceId, endpointId, createdAt, change) };
}

/**
 * A change of an endpoint's statistics as one UpdateItem, sent after the delivery's own write: a function that stops
 * between the two loses this one change (a delivery then shows as pending, or a retry's count stays where it was).
 */
export async function recordStats(db: Db, workspaceId: string, endpointId: string, createdAt: string, change: StatsChange): Promise<void> {
  await send(db, new UpdateCommand(statsUpdate(db, workspaceId, endpointId, createdAt, change)));
}

/** Any number an item holds, or 0. */
const count = (value: unknown) => (typeof value === 'number' ? value : 0);

/** A stored hour as the statistics service reads it. */
function toBucket(item: Record<string, unknown>, prefix: string): StatsBucket {
  return {
    hour: (item.SK as string).slice(prefix.length),
    created: count(item.created),
    succeeded: count(item.succeeded),
    failed: count(item.failed),
    durations: Array.from({ length: DURATION_BINS }, (_, bin) => count(item[binAttribute(bin)])),
    lastSuccessAt: typeof item.lastSuccessAt === 'string' ? item.lastSuccessAt : null,
    lastFailureAt: typeof item.lastFailureAt === 'string' ? item.lastFailureAt : null,
  };
}

/** Sorts after every hour (`2026-…T09`: digits, `-` and `T`), so a range from an hour reaches the newest. */
const AFTER_EVERY_HOUR = '~';

/**
 * An endpoint's hours from `fromHour` on: one Query, eventually consistent (a change may show a second late), at
 * most one item per hour (30 days are 721 items of a few hundred bytes: one page).
 */
export async function readStats(db: Db, workspaceId: string, endpointId: string, fromHour: string): Promise<StatsBucket[]> {
  const pattern = patterns.deliveryStatsOfEndpoint(workspaceId, endpointId);
  const items = await queryAll<Record<string, unknown>>(db, pattern, {
    skBetween: [`${pattern.skPrefix}${fromHour}`, `${pattern.skPrefix}${AFTER_EVERY_HOUR}`],
  });
  return items.map((item) => toBucket(item, pattern.skPrefix));
}

/** The keys of every hour of an endpoint's statistics: what deleting the endpoint removes. */
export function statsKeysOfEndpoint(db: Db, workspaceId: string, endpointId: string): Promise<ItemKey[]> {
  return queryAll<ItemKey>(db, patterns.deliveryStatsOfEndpoint(workspaceId, endpointId), { projection: ['PK', 'SK'] });
}

/** What the statistics route reads. */
export function makeDeliveryStatsReader(db: Db) {
  return {
    /** An endpoint's hourly statistics from `fromHour` (`statsHour`) on. */
    deliveryStatsSince: (workspaceId: string, endpointId: string, fromHour: string) => readStats(db, workspaceId, endpointId, fromHour),
  };
}
