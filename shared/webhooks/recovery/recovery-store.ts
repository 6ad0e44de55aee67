import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ID_PREFIXES, idTime, ulidCeil, ulidFloor } from '../../platform/ids.ts';
import { type AuditEntry, auditPut } from '../../audit/index.ts';
import { transact } from '../../platform/store/conditional.ts';
import { DELIVERY_RETENTION_SECONDS, type StoredDelivery } from '../deliveries/delivery-records.ts';
import { deliveryItem, pendingKeys } from '../deliveries/delivery-shared-store.ts';
import { queryAll, queryInput } from '../../platform/store/query.ts';
import { send, type Db } from '../../platform/store/send.ts';
import { ENTITY, gsi2, keys, patterns } from '../../platform/store/keys.ts';
import type { ItemKey } from '../../platform/prefetch.ts';

/*
 * Recoveries of an endpoint's failed deliveries (`POST /webhooks/{id}/recover`), and the test event's delivery (what
 * the worker does to run a recovery is in recovery-worker-store.ts, so neither function bundles the other's part). A
 * recovery is an item of its own: the span as a range of delivery ids, how far it got (`cursor`, the last delivery id
 * it went past), which step it is at (`step`: only the queue message of that step may move it on, so a message seen
 * twice cannot run a page twice) and how many it queued. It sits on GSI2 `RECOVERY` by when it last moved while it
 * runs, so the sweeper restarts one whose message was lost.
 */

export interface Recovery {
  id: string;
  endpointId: string;
  /** The span as delivery ids: from the first possible id of `since` to the last possible one of `until`. */
  fromId: string;
  toId: string;
  since: string;
  until: string;
  /** How many failed deliveries the span held when it was asked for (the answer's `queued`). */
  expected: number;
  queued: number;
  cursor: string | null;
  step: number;
  status: 'running' | 'done' | 'stopped';
  createdAt: string;
  updatedAt: string;
}

/** Key-condition ranges a count is split into, read side by side: a large span is counted in about a page's time. */
const COUNT_SLICES = 8;

/** The delivery ids of a span of time: from the first possible id of its first millisecond to the last of its last. */
export function deliveryIdSpan(since: number, until: number): { fromId: string; toId: string } {
  return { fromId: `${ID_PREFIXES.delivery}_${ulidFloor(since)}`, toId: `${ID_PREFIXES.delivery}_${ulidCeil(until)}` };
}

/** The span [fromId, toId] of delivery ids cut into at most `slices` ranges of time (ULIDs sort by their time first). */
export function slicesOf(fromId: string, toId: string, slices: number): [string, string][] {
  const start = idTime(fromId);
  const end = idTime(toId);
  const width = Math.max(1, Math.ceil((end - start + 1) / slices));
  const ranges: [string, string][] = [];
  for (let at = start; at <= end; at += width) {
    const last = at + width > end;
    ranges.push([at === start ? fromId : deliveryIdSpan(at, at).fromId, last ? toId : deliveryIdSpan(at + width - 1, at + width - 1).toId]);
  }
  return ranges;
}

/** What the webhook-deliveries route group does for test events and recoveries. */
export function makeRecoveryApiStore(db: Db) {
  return {
    /**
     * How many failed deliveries of the endpoint lie in [fromId, toId]: Select COUNT over its failed list (keys only,
     * so one 1 MB page counts thousands). The first and the last failed delivery of the span bound it (two reads of
     * one key), and that range is counted in `COUNT_SLICES` time slices read side by side, so that deliveries crowded
     * into a few minutes of a two-week span are counted in about one page's time, not page after page.
     */
    async countFailedDeliveries(endpointId: string, span: { fromId: string; toId: string }): Promise<number> {
      const pattern = patterns.failedDeliveriesOfEndpoint(endpointId);
      const edge = async (newestFirst: boolean) => {
        const input = queryInput(db, pattern, { skBetween: [span.fromId, span.toId], newestFirst });
        const out = await send<{ Items?: ItemKey[] }>(db, new QueryCommand({ ...input, Limit: 1 }));
        return out.Items?.[0]?.SK;
      };
      const [first, last] = await Promise.all([edge(false), edge(true)]);
      if (!first || !last) return 0;
      const counts = await Promise.all(
        slicesOf(first, last, COUNT_SLICES).map(async (range) => {
          let count = 0;
          let startKey: Record<string, unknown> | undefined;
          do {
            const input = queryInput(db, pattern, { skBetween: range });
            const out = await send<{ Count?: number; LastEvaluatedKey?: Record<string, unknown> }>(
              db,
              new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: startKey }),
            );
            count += out.Count ?? 0;
            startKey = out.LastEvaluatedKey;
          } while (startKey);
          return count;
        }),
      );
      // The list is per endpoint, and endpoint ids are unique: the caller has checked the endpoint is its workspace's.
      return counts.reduce((sum, count) => sum + count, 0);
    },

    /** The recovery, on the sweeper's index while it runs, with its audit entry: one transaction. */
    async startRecovery(workspaceId: string, recovery: Recovery, audit: AuditEntry): Promise<void> {
      await transact(
        db,
        [
          {
            Put: {
              TableName: db.tableName,
              Item: {
                ...keys.deliveryRecovery(workspaceId, recovery.id),
                ...(recovery.status === 'running' ? gsi2.runningRecovery(workspaceId, recovery.id, recovery.updatedAt) : {}),
                type: ENTITY.deliveryRecovery,
                workspaceId,
                ...recovery,
                ttl: Math.floor(Date.parse(recovery.createdAt) / 1000) + DELIVERY_RETENTION_SECONDS,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [],
      );
    },

    /**
     * A test event's delivery, due now and on the sweeper's index (so a lost message is sent anyway), in its
     * endpoint's log, with its audit entry: one transaction (its bucket's rollup counts it in the statistics).
     */
    async createTestDelivery(workspaceId: string, delivery: StoredDelivery, audit: AuditEntry): Promise<void> {
      await transact(
        db,
        [
          {
            Put: {
              TableName: db.tableName,
              Item: {
                ...deliveryItem(workspaceId, delivery, Date.parse(delivery.createdAt)),
                ...pendingKeys(delivery.id, delivery.createdAt),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [],
      );
    },
  };
}

/** What the sweeper does with recoveries: find the ones that stopped moving (their message was lost). */
export function makeRecoverySweeperStore(db: Db) {
  return {
    async stalledRecoveries(before: string): Promise<{ workspaceId: string; id: string; step: number }[]> {
      return queryAll(db, patterns.runningRecoveries(), { skBefore: before, projection: ['workspaceId', 'id', 'step'], maxItems: 100 });
    },
  };
}

export type RecoveryApiStore = ReturnType<typeof makeRecoveryApiStore>;
export type RecoverySweeperStore = ReturnType<typeof makeRecoverySweeperStore>;
