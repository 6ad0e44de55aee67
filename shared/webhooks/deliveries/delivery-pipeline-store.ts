import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditionalOrOld } from '../../platform/store/conditional.ts';
import { patterns } from '../../platform/store/keys.ts';
import { queryAll } from '../../platform/store/query.ts';
import type { Db } from '../../platform/store/send.ts';
import { toStored, type StoredDelivery } from './delivery-records.ts';
import { deliveryItem, pendingKeys, updateDelivery } from './delivery-shared-store.ts';
import { creationOf, isLate, recordLateStats } from '../stats/delivery-stats-store.ts';

/**
 * Webhook deliveries as the fan-out makes them and the sweeper requeues them (delivery-store.ts has the API's and
 * the worker's methods).
 */

/** What the stream fan-out does with deliveries: create them, and mark those whose first message was not queued. */
export function makeDeliveryFanoutStore(db: Db) {
  return {
    /**
     * Creates a pending delivery unless it exists already (a stream batch seen twice). Answers whether its first
     * attempt still waits for a message: true when new, or when an interrupted run created it and its first attempt
     * has not started. A delivery is in its endpoint's log (GSI3) from the start, so the log lists it while it is
     * queued and pausing or deleting the endpoint finds it. It is in the sweeper's index (GSI2) only while it waits
     * for a retry, or when the fan-out could not queue its first message (`markDeliveryDue`); on the happy path the
     * message itself carries it (an index write more per delivery would bill a write unit more). Only a put that
     * made it writes nothing for its statistics: its bucket's rollup counts it, unless it is made at `now` after
     * its bucket's cutoff (a stream record retried for minutes), when it is counted as a late change instead.
     * Without `now` it is made at its creation time.
     */
    async createDelivery(workspaceId: string, delivery: StoredDelivery, createdAtMs: number, now?: number): Promise<boolean> {
      const late = now !== undefined && isLate(delivery.id, now);
      const put = await sendConditionalOrOld(
        db,
        new PutCommand({
          TableName: db.tableName,
          // `none`: its bucket's rollup does not count it (the late change below does).
          Item: { ...deliveryItem(workspaceId, delivery, createdAtMs), ...(late ? { rollupStatus: 'none', rollupAttempts: 0 } : {}) },
          ConditionExpression: 'attribute_not_exists(PK)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      if (put.written) {
        // Only when this put made it, so a stream record seen again does not count it twice; a fan-out that stops
        // between the two writes loses the count (the record's retry finds the delivery already there).
        if (late) await recordLateStats(db, workspaceId, delivery.endpointId, creationOf(delivery.id), { created: 1 });
        return true;
      }
      const existing = toStored(put.old);
      return existing?.status === 'pending' && existing.attempts === 0 && existing.attemptToken === delivery.attemptToken;
    },

    /**
     * Puts a queued first attempt whose message may never have been sent (SQS refused it, or its stream record
     * failed after the delivery was written) into the sweeper's index, due now: the sweeper re-queues it after its
     * grace period whatever becomes of the stream record or the endpoint's subscription. Only while that first
     * attempt has not started; answers whether it was marked.
     */
    async markDeliveryDue(workspaceId: string, deliveryId: string, firstToken: string, now: string): Promise<boolean> {
      const due = pendingKeys(deliveryId, now);
      const marked = await updateDelivery(db, workspaceId, deliveryId, {
        set: 'nextRetryAt = :now, GSI2PK = :gpk, GSI2SK = :gsk',
        condition: '#status = :pending AND attemptToken = :token',
        values: { ':now': now, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK, ':pending': 'pending', ':token': firstToken },
      });
      return marked !== undefined;
    },
  };
}

/** What the sweeper does with deliveries: find the due attempts whose message was lost, and queue them again. */
export function makeDeliverySweeperStore(db: Db) {
  return {
    /** Hands a due attempt a new token (the sweeper): only if nobody moved it since `observedToken` was read. */
    requeue(workspaceId: string, deliveryId: string, observedToken: string, token: string, now: string) {
      const due = pendingKeys(deliveryId, now);
      return updateDelivery(db, workspaceId, deliveryId, {
        set: 'attemptToken = :token, nextRetryAt = :now, updatedAt = :now, GSI2PK = :gpk, GSI2SK = :gsk',
        condition: '#status = :pending AND attemptToken = :observed',
        values: { ':token': token, ':now': now, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK, ':pending': 'pending', ':observed': observedToken },
      });
    },

    /** Pending deliveries due before `before` (ISO), from every GSI2 shard: what the sweeper looks at. */
    async dueDeliveries(before: string, limitPerShard = 200): Promise<{ workspaceId: string; id: string; attemptToken: string }[]> {
      const shards = await Promise.all(
        patterns.dueDeliveryShards().map((shard) =>
          queryAll<{ workspaceId: string; id: string; attemptToken: string }>(db, shard, {
            skBefore: before,
            projection: ['workspaceId', 'id', 'attemptToken'],
            maxItems: limitPerShard,
          }),
        ),
      );
      return shards.flat();
    },
  };
}

export type DeliveryFanoutStore = ReturnType<typeof makeDeliveryFanoutStore>;
export type DeliverySweeperStore = ReturnType<typeof makeDeliverySweeperStore>;
