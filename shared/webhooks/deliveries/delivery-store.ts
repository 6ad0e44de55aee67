import { itemKeyString, type ItemKey } from '../../platform/prefetch.ts';
import { type AuditEntry, auditPut } from '../../audit/index.ts';
import { transact } from '../../platform/store/conditional.ts';
import type { Pager } from '../../platform/store/pager.ts';
import type { Page, PageRequest } from '../../platform/store/query.ts';
import { batchDelete, batchRead } from '../../platform/store/reads.ts';
import type { Db } from '../../platform/store/send.ts';
import { FAILED_DELIVERY_INDEX, patterns } from '../../platform/store/keys.ts';
import { toDelivery, type AttemptEntry, type Delivery, type DeliveryStatus } from './delivery-records.ts';
import {
  deliveryUpdate,
  endpointLog,
  inWorkspace,
  lateSnapshot,
  pendingKeys,
  requeueChange,
  sharedDeliveryMethods,
  staleClaimOf,
  updateDelivery,
} from './delivery-shared-store.ts';
import {
  creationOf,
  isLate,
  lateStatsChange,
  recordLateStats,
  statsKeysOfEndpoint,
  type StatsChange,
} from '../stats/delivery-stats-store.ts';

export * from './delivery-records.ts';

/** A finished delivery as a manual retry read it: the bucket and the count (by its status) it leaves. */
export type FinishedDelivery = Pick<Delivery, 'id' | 'endpointId' | 'createdAt'> & { status: Exclude<DeliveryStatus, 'pending'> };

/*
 * Webhook deliveries: one item each; every state change is a conditional update on its attempt token. The methods
 * come in one factory per kind of caller, the API's route groups and each stage of the webhook pipeline (fan-out,
 * worker, sweeper: the fan-out's and the sweeper's in delivery-pipeline-store.ts), so that a function's bundle holds
 * only the methods it calls: each function's composition puts together the factories it needs.
 */

/**
 * The records of a page of an endpoint's log, in its order: those in the workspace (the log is per endpoint, and
 * endpoint ids are unique, but a record outside the caller's workspace is never read), with `status` if given.
 */
async function readLogRecords(db: Db, workspaceId: string, logged: Record<string, unknown>[], status: DeliveryStatus | undefined) {
  const own = inWorkspace(workspaceId, logged as unknown as ItemKey[]);
  // Eventually consistent, as the index the page came from: a status may be up to about a second old.
  const records = await batchRead(db, own, { consistent: false });
  return own.flatMap((key) => {
    const record = records.get(itemKeyString(key));
    return record && (!status || record.status === status) ? [record] : [];
  });
}

/** What the API's route groups (webhooks, webhook-deliveries) do with deliveries: the log, manual retries, cleanup. */
export function makeDeliveryApiStore(db: Db, pager: Pager) {
  return {
    ...sharedDeliveryMethods(db),

    /**
     * A manual retry: a finished delivery becomes pending for one attempt now, with its audit entry. Only from the
     * status the caller read; answers false when it is no longer that (a concurrent retry won). After its bucket's
     * cutoff (or once its changes are counted late) the same transaction takes it out of its bucket's and hour's
     * `succeeded` or `failed` count, which the status read names; before, its bucket's rollup sees it as it ends up.
     */
    async retryNow(workspaceId: string, delivery: FinishedDelivery, token: string, now: string, audit: AuditEntry): Promise<boolean> {
      const uncounted: StatsChange = delivery.status === 'success' ? { succeeded: -1 } : { failed: -1 };
      const attempt = (late: boolean) => {
        const change = requeueChange(
          delivery.id,
          { token, now, late },
          // Counted as it ends up only while no earlier change was counted late: else this one must be too.
          {
            condition: late ? '#status = :observed' : '#status = :observed AND attribute_not_exists(rollupStatus)',
            values: { ':observed': delivery.status },
          },
        );
        return transact(
          db,
          [
            { Update: deliveryUpdate(db, workspaceId, delivery.id, change) },
            ...(late ? lateStatsChange(db, workspaceId, delivery.endpointId, creationOf(delivery.id), uncounted) : []),
            auditPut(db, workspaceId, audit),
          ],
          [0],
        );
      };
      if (isLate(delivery.id, Date.parse(now))) return (await attempt(true)) === undefined;
      // The condition failed either on the status (the late attempt fails too) or on a late count (it holds).
      return (await attempt(false)) === undefined || (await attempt(true)) === undefined;
    },

    /**
     * The workspace's deliveries newest first, or one endpoint's when `endpointId` is given: its log (GSI3) holds
     * keys and eventType, so each page's records are read from the table (one BatchGetItem, eventually consistent like
     * the index itself) and the status filter is applied to them.
     */
    async listDeliveries(
      workspaceId: string,
      filter: { endpointId?: string | undefined; status?: DeliveryStatus | undefined; eventType?: string | undefined },
      page: PageRequest,
    ): Promise<Page<Delivery>> {
      // An endpoint's log (GSI3) holds no workspace and no status: those are checked on the records it leads to
      // (readLogRecords). The workspace's list filters all three in its Query.
      const byEndpoint = filter.endpointId !== undefined;
      const conditions: string[] = byEndpoint ? [] : ['workspaceId = :ws'];
      const values: Record<string, unknown> = byEndpoint ? {} : { ':ws': workspaceId };
      const statusInQuery = filter.status !== undefined && !byEndpoint;
      if (statusInQuery) conditions.push('#status = :status'), (values[':status'] = filter.status);
      if (filter.eventType) conditions.push('eventType = :eventType'), (values[':eventType'] = filter.eventType);
      const result = await pager.queryPage<Record<string, unknown>>({
        scope: `deliveries:${workspaceId}:${JSON.stringify(filter)}`,
        ...(byEndpoint ? patterns.deliveriesByEndpoint(filter.endpointId!) : patterns.deliveriesByWorkspace(workspaceId)),
        ...(conditions.length > 0 && {
          filter: {
            FilterExpression: conditions.join(' AND '),
            ...(statusInQuery && { ExpressionAttributeNames: { '#status': 'status' } }),
            ExpressionAttributeValues: values,
          },
        }),
        ...(byEndpoint && { hydrate: (found: Record<string, unknown>[]) => readLogRecords(db, workspaceId, found, filter.status) }),
        ...page,
      });
      return { ...result, items: result.items.map(toDelivery) };
    },

    /**
     * Deletes an endpoint's delivery log and its statistics; answers how many deliveries it deleted. (A worker still
     * finishing an attempt, or a rollup, may write an item again afterwards: TTL removes it.)
     */
    async deleteEndpointDeliveries(workspaceId: string, endpointId: string): Promise<number> {
      const [items, stats] = await Promise.all([endpointLog(db, endpointId), statsKeysOfEndpoint(db, workspaceId, endpointId)]);
      // The log holds only this endpoint's deliveries; the partition check keeps the delete inside the caller's workspace.
      await batchDelete(db, [...inWorkspace(workspaceId, items), ...stats]);
      return items.length;
    },
  };
}

/** What the delivery worker does with deliveries: read one, claim its attempt, record it, fail what cannot be sent. */
export function makeDeliveryWorkerStore(db: Db) {
  return {
    ...sharedDeliveryMethods(db),

    /**
     * Counts a recorded attempt's change in the bucket and hour of its delivery (`counting.deliveryId`, whose id
     * carries its creation time) when its changes are counted late (the record `recordAttempt` answered says so);
     * otherwise the bucket's rollup counts it, and this writes nothing.
     */
    async recordDeliveryStats(
      workspaceId: string,
      endpointId: string,
      _createdAt: string,
      change: StatsChange,
      counting: { late: boolean; deliveryId: string },
    ): Promise<void> {
      if (counting.late) await recordLateStats(db, workspaceId, endpointId, creationOf(counting.deliveryId), change);
    },

    /**
     * Takes the attempt that `token` names, swapping in `claim` (made by `claimOf(token, …)`); undefined if the
     * delivery moved on (drop the message). The message itself, seen again after its worker died, may take over a
     * claim of its token older than `CLAIM_LEASE_MS`. A first receive
     * takes it out of the sweeper's index (SQS shows the message again if the worker dies); a message received
     * again makes the claim a lease there instead: the due time moves to now, so the sweeper leaves the attempt
     * alone for its grace period and takes it back only if this worker dies too (and the message's receives run out).
     */
    claimAttempt(workspaceId: string, deliveryId: string, token: string, claim: string, now: string, attempt: { redelivered: boolean }) {
      const due = pendingKeys(deliveryId, now);
      const lease = attempt.redelivered ? { ':gpk': due.GSI2PK, ':gsk': due.GSI2SK } : {};
      const stale = staleClaimOf(token, now);
      return updateDelivery(db, workspaceId, deliveryId, {
        set: `attemptToken = :claim, updatedAt = :now, nextRetryAt = :now${attempt.redelivered ? ', GSI2PK = :gpk, GSI2SK = :gsk' : ''}`,
        ...(attempt.redelivered ? {} : { remove: 'GSI2PK, GSI2SK' }),
        condition: `#status = :pending AND (attemptToken = :token OR ${stale.condition})`,
        values: { ':claim': claim, ':now': now, ':pending': 'pending', ':token': token, ...stale.values, ...lease },
      });
    },

    /**
     * Records a finished attempt by the holder of `claim`: success, the next pending attempt, or failed. An attempt
     * that ends after its delivery's bucket's cutoff leaves the delivery's state before it for the rollup
     * (`lateCounted` in the answer: count the attempt as a late change).
     */
    recordAttempt(
      workspaceId: string,
      deliveryId: string,
      claim: string,
      entry: AttemptEntry,
      outcome: { status: 'success' | 'failed' } | { status: 'pending'; nextRetryAt: string; attemptToken: string },
    ) {
      const late = isLate(deliveryId, Date.parse(entry.at) + entry.durationMs);
      const common = `${lateSnapshot(late)}#status = :status, attempts = attempts + :one, statusCode = :code, lastError = :error, attemptLog = list_append(attemptLog, :entry), updatedAt = :now`;
      const values = {
        ':status': outcome.status,
        ':one': 1,
        ':code': entry.statusCode,
        ':error': entry.error,
        ':entry': [entry],
        ':now': entry.at,
        ':claim': claim,
      };
      if (outcome.status === 'pending') {
        const due = pendingKeys(deliveryId, outcome.nextRetryAt);
        return updateDelivery(db, workspaceId, deliveryId, {
          set: `${common}, nextRetryAt = :next, attemptToken = :token, GSI2PK = :gpk, GSI2SK = :gsk`,
          condition: 'attemptToken = :claim',
          values: { ...values, ':next': outcome.nextRetryAt, ':token': outcome.attemptToken, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK },
        });
      }
      // A failed delivery joins its endpoint's failed list (GSI4), what a recovery reads; a success leaves it.
      const failed = outcome.status === 'failed';
      return updateDelivery(db, workspaceId, deliveryId, {
        set: failed ? `${common}, ${FAILED_DELIVERY_INDEX.set}` : common,
        remove: `nextRetryAt, attemptToken, GSI2PK, GSI2SK, manual${failed ? '' : `, ${FAILED_DELIVERY_INDEX.remove}`}`,
        condition: 'attemptToken = :claim',
        values,
      });
    },
  };
}

export type DeliveryApiStore = ReturnType<typeof makeDeliveryApiStore>;
export type DeliveryWorkerStore = ReturnType<typeof makeDeliveryWorkerStore>;
