import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../../platform/store/conditional.ts';
import { COUNTED_ATTRIBUTES, idRangeOf, readBucketItems, readWatermark, toBucket } from './delivery-stats-read-store.ts';
import { addUp, emptyBucket } from './stats-counting.ts';
import { COUNTS, creationOf, itemsOf, TIMES, update, type StatsBucket } from './delivery-stats-store.ts';
import { ENTITY, keys, patterns } from '../../platform/store/keys.ts';
import { queryAll } from '../../platform/store/query.ts';
import { send, type Db } from '../../platform/store/send.ts';

/*
 * What the statistics rollup (shared/webhooks/stats/stats-rollup.ts) reads and writes: the workspace's deliveries by
 * creation time, the items it counts them into, and the workspace's watermark, which it moves on only from where it
 * read it (two rollups of the same buckets write the same values; one of them moves the watermark).
 */

/** Attributes the statistics of the previous version kept on hour items: a rollup of the hour removes them. */
const LEGACY = ['created', 'succeeded', 'failed', 'lastSuccessAt', 'lastFailureAt'];

/**
 * The UpdateItem writing what the rollup counted into the bucket's or the hour's item starting at `start`: fixed
 * values set (a zero, or no time, removed), so writing it again changes nothing; the late changes are left alone.
 */
export function baseUpdate(db: Db, workspaceId: string, endpointId: string, start: number, totals: StatsBucket, level: 'bucket' | 'hour') {
  const values: Record<string, unknown> = {};
  const set = ['#type = :type', '#ttl = :ttl'];
  const remove = level === 'hour' ? [...LEGACY] : [];
  const put = (name: string, value: number | string | null) =>
    value === 0 || value === null ? remove.push(name) : ((values[`:${name}`] = value), set.push(`${name} = :${name}`));
  for (const [field, name] of Object.entries(COUNTS)) put(name, totals[field as keyof typeof COUNTS]);
  totals.durations.forEach((n, bin) => put(`d${bin}`, n));
  put(TIMES.successAt, totals.lastSuccessAt);
  put(TIMES.failureAt, totals.lastFailureAt);
  const target = itemsOf(workspaceId, endpointId, start)[level === 'bucket' ? 0 : 1]!;
  return new UpdateCommand(update(db, target, `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`, values));
}

/** What the rollup does with the table. */
export function makeStatsRollupStore(db: Db) {
  return {
    /** The workspace's watermark, read consistently, or undefined before its first rollup. */
    rollupWatermark: (workspaceId: string) => readWatermark(db, workspaceId),

    /**
     * When the workspace's oldest delivery still kept was created (its id's time), or its first in [from, to):
     * undefined when there is none.
     */
    async oldestDeliveryAt(workspaceId: string, span?: { from: number; to: number }): Promise<number | undefined> {
      const range = span && { skBetween: idRangeOf(span.from, span.to) };
      const [oldest] = await queryAll<{ id: string }>(db, patterns.deliveriesByWorkspace(workspaceId), {
        ...range,
        projection: ['id'],
        maxItems: 1,
      });
      return oldest ? creationOf(oldest.id) : undefined;
    },

    /**
     * Moves the watermark from `from` (undefined: none yet) to `to`, with the endpoints of the hour `to` is in;
     * answers false when another rollup moved it first.
     */
    async advanceWatermark(
      workspaceId: string,
      from: number | undefined,
      to: number,
      hourEndpoints: readonly string[],
      now: number,
    ): Promise<boolean> {
      const endpoints = hourEndpoints.length > 0;
      const out = await sendConditional(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.deliveryStatsWatermark(workspaceId),
          UpdateExpression: `SET #type = :type, rolledTo = :to, updatedAt = :now${endpoints ? ', hourEndpoints = :endpoints' : ' REMOVE hourEndpoints'}`,
          ConditionExpression: from === undefined ? 'attribute_not_exists(rolledTo)' : 'rolledTo = :from',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':type': ENTITY.deliveryStatsWatermark,
            ':to': to,
            ':now': new Date(now).toISOString(),
            ...(endpoints ? { ':endpoints': new Set(hourEndpoints) } : {}),
            ...(from === undefined ? {} : { ':from': from }),
          },
        }),
      );
      return out !== undefined;
    },

    /**
     * The workspace's deliveries created in [from, to) (their ids' range), with what counting needs; eventually
     * consistent, since the rollup reads a bucket long after its changes.
     */
    deliveriesCreated: (workspaceId: string, from: number, to: number) =>
      queryAll<Record<string, unknown>>(db, patterns.deliveriesByWorkspace(workspaceId), {
        skBetween: idRangeOf(from, to),
        projection: COUNTED_ATTRIBUTES,
      }),

    /** Writes what the rollup counted for an endpoint's bucket or hour starting at `start`. */
    async writeRollup(
      workspaceId: string,
      endpointId: string,
      start: number,
      totals: StatsBucket,
      level: 'bucket' | 'hour',
    ): Promise<void> {
      await send(db, baseUpdate(db, workspaceId, endpointId, start, totals, level));
    },

    /** What the rollup counted for an endpoint's buckets in [from, to), added up (read consistently). */
    async rolledBuckets(workspaceId: string, endpointId: string, from: number, to: number): Promise<StatsBucket> {
      const totals = emptyBucket('hour');
      for (const item of await readBucketItems(db, workspaceId, endpointId, from, to, true)) addUp(totals, toBucket(item, '', false));
      return totals;
    },
  };
}

export type StatsRollupStore = ReturnType<typeof makeStatsRollupStore>;
