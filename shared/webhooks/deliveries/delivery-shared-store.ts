import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../../platform/prefetch.ts';
import { sendConditional } from '../../platform/store/conditional.ts';
import { queryAll } from '../../platform/store/query.ts';
import { batchRead, getItem } from '../../platform/store/reads.ts';
import type { Db } from '../../platform/store/send.ts';
import { ENTITY, FAILED_DELIVERY_INDEX, gsi2, gsi3, keys, patterns } from '../../platform/store/keys.ts';
import { CLAIM_LEASE_MS, CLAIM_PREFIX, claimOf, DELIVERY_RETENTION_SECONDS, toStored, type StoredDelivery } from './delivery-records.ts';
import { creationOf, isLate, recordLateStats } from '../stats/delivery-stats-store.ts';

/*
 * What more than one delivery store needs (delivery-store.ts, delivery-pipeline-store.ts, and the recovery's stores
 * in ../recovery/). They are module functions over `db`, not one factory's closures, so that a function's bundle
 * holds only the stores it builds and what they use of this file.
 */

/** A change of one delivery: what it sets and removes, only if `condition` holds (`#status` names `status`). */
export interface DeliveryChange {
  set: string;
  remove?: string;
  condition: string;
  values: Record<string, unknown>;
}

/** The conditional update of one delivery as an UpdateItem's input, or a transaction's Update. */
export function deliveryUpdate(db: Db, workspaceId: string, deliveryId: string, change: DeliveryChange) {
  return {
    TableName: db.tableName,
    Key: keys.delivery(workspaceId, deliveryId),
    UpdateExpression: `SET ${change.set}${change.remove ? ` REMOVE ${change.remove}` : ''}`,
    ConditionExpression: change.condition,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: change.values,
  };
}

/** A conditional update of one delivery: its new state, or undefined when it moved on (the condition failed). */
export async function updateDelivery(db: Db, workspaceId: string, deliveryId: string, change: DeliveryChange) {
  const out = await sendConditional<{ Attributes?: Record<string, unknown> }>(
    db,
    new UpdateCommand({ ...deliveryUpdate(db, workspaceId, deliveryId, change), ReturnValues: 'ALL_NEW' }),
  );
  return toStored(out?.Attributes);
}

/**
 * A finished delivery queued again for one attempt now, by a manual retry or a recovery: pending with a fresh
 * `token`, `manual` (that single attempt schedules no other), due now on the sweeper's index (so a lost message is
 * sent anyway) and out of its endpoint's failed list; when `late`, its state before the change stays on it for the
 * rollup. Only from the state `from` names (the caller's condition and its values).
 */
export function requeueChange(
  deliveryId: string,
  change: { token: string; now: string; late: boolean },
  from: { condition: string; values: Record<string, unknown> },
): DeliveryChange {
  const due = pendingKeys(deliveryId, change.now);
  return {
    set: `${lateSnapshot(change.late)}#status = :pending, attemptToken = :token, nextRetryAt = :now, updatedAt = :now, manual = :true, GSI2PK = :gpk, GSI2SK = :gsk`,
    remove: FAILED_DELIVERY_INDEX.remove,
    condition: from.condition,
    values: {
      ':pending': 'pending',
      ':token': change.token,
      ':now': change.now,
      ':true': true,
      ':gpk': due.GSI2PK,
      ':gsk': due.GSI2SK,
      ...from.values,
    },
  };
}

/**
 * The SET clauses a change of a delivery adds when it is late for its bucket's statistics (shared/webhooks/stats/delivery-stats-store.ts):
 * the delivery's state before its first late change, which its bucket's rollup counts (`#status` names `status`).
 */
export const LATE_SNAPSHOT =
  'rollupStatus = if_not_exists(rollupStatus, #status), rollupAttempts = if_not_exists(rollupAttempts, attempts)';

/** `LATE_SNAPSHOT` and a comma when `late`, else nothing: to put in front of a SET list. */
export const lateSnapshot = (late: boolean) => (late ? `${LATE_SNAPSHOT}, ` : '');

/** A new delivery's item: in the workspace's deliveries, in its endpoint's log (GSI3), kept 30 days from `createdAtMs`. */
export function deliveryItem(workspaceId: string, delivery: StoredDelivery, createdAtMs: number): Record<string, unknown> {
  return {
    ...keys.delivery(workspaceId, delivery.id),
    ...gsi3.endpointDelivery(delivery.endpointId, delivery.id),
    type: ENTITY.delivery,
    workspaceId,
    ...delivery,
    ttl: Math.floor(createdAtMs / 1000) + DELIVERY_RETENTION_SECONDS,
  };
}

/** The sweeper's index keys (GSI2) of a delivery due at `nextRetryAt`. */
export const pendingKeys = (deliveryId: string, nextRetryAt: string) => gsi2.dueDelivery(deliveryId, nextRetryAt);

/** `mayStartAttempt`'s second rule as a condition: a claim made from `token` and older than `CLAIM_LEASE_MS`. */
export const staleClaimOf = (token: string, now: string) => ({
  condition: '(begins_with(attemptToken, :mine) AND updatedAt < :stale)',
  values: { ':mine': claimOf(token, ''), ':stale': new Date(Date.parse(now) - CLAIM_LEASE_MS).toISOString() },
});

/** The keys among `keys` of the workspace's deliveries (an endpoint's log is keyed by endpoint, not workspace). */
export function inWorkspace(workspaceId: string, keys: ItemKey[]): ItemKey[] {
  const partition = patterns.deliveriesByWorkspace(workspaceId).pk;
  return keys.filter((key) => key.PK === partition);
}

/** The keys of every delivery of an endpoint: its log (GSI3), and GSI1 for deliveries made before GSI3. */
export async function endpointLog(db: Db, endpointId: string): Promise<ItemKey[]> {
  const [logged, legacy] = await Promise.all([
    queryAll<ItemKey>(db, patterns.deliveriesByEndpoint(endpointId), { projection: ['PK', 'SK'] }),
    queryAll<ItemKey>(db, patterns.legacyDeliveriesByEndpoint(endpointId), { projection: ['PK', 'SK'] }),
  ]);
  return [...logged, ...legacy];
}

/** The methods both the API's and the worker's delivery stores have: read one, and fail an endpoint's pending ones. */
export function sharedDeliveryMethods(db: Db) {
  return {
    /** One delivery, read consistently unless `consistent: false` (half the read units; a change may be a second late). */
    async getDelivery(
      workspaceId: string,
      deliveryId: string,
      options: { consistent?: boolean } = {},
    ): Promise<StoredDelivery | undefined> {
      return toStored(await getItem(db, keys.delivery(workspaceId, deliveryId), options));
    },

    /**
     * Fails a pending delivery without an attempt (its endpoint was paused, switched off or removed). An attempt in
     * flight (claimed) is left to finish and record its result; the worker then fails it when the next attempt finds
     * the endpoint off. `by` is that worker: a claim its message made and its worker died holding (older than
     * `CLAIM_LEASE_MS`) is failed too. A delivery failed after its bucket's cutoff counts as a late change.
     */
    async failPending(workspaceId: string, deliveryId: string, reason: string, now: string, by?: { messageToken: string }) {
      const stale = by && staleClaimOf(by.messageToken, now);
      const failed = await updateDelivery(db, workspaceId, deliveryId, {
        set: `${lateSnapshot(isLate(deliveryId, Date.parse(now)))}#status = :failed, lastError = :reason, updatedAt = :now, ${FAILED_DELIVERY_INDEX.set}`,
        remove: 'nextRetryAt, attemptToken, GSI2PK, GSI2SK, manual',
        condition: `#status = :pending AND (NOT begins_with(attemptToken, :claimed)${stale ? ` OR ${stale.condition}` : ''})`,
        values: { ':failed': 'failed', ':reason': reason, ':now': now, ':pending': 'pending', ':claimed': CLAIM_PREFIX, ...stale?.values },
      });
      // A separate write after the delivery's: a function that stops between the two loses this count.
      if (failed?.lateCounted) await recordLateStats(db, workspaceId, failed.endpointId, creationOf(deliveryId), { failed: 1 });
      return failed;
    },

    /**
     * Every pending delivery of an endpoint (newest first): to fail them when it is paused or switched off. Its log
     * holds only keys, so their status is read from the table (BatchGetItem, eventually consistent: failing one is
     * conditional anyway).
     */
    async pendingDeliveryIds(endpointId: string): Promise<string[]> {
      const logged = await endpointLog(db, endpointId);
      const records = await batchRead(db, logged, { consistent: false, projection: ['id', 'status'] });
      return [...records.values()].filter((record) => record?.status === 'pending').map((record) => record!.id as string);
    },
  };
}
