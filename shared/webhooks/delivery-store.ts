import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeyString, type ItemKey } from '../platform/prefetch.ts';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import { sendConditionalOrOld, transact } from '../platform/store/conditional.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { batchDelete, batchRead } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { FAILED_DELIVERY_INDEX, keys, patterns } from '../platform/store/keys.ts';
import { toDelivery, toStored, type AttemptEntry, type Delivery, type DeliveryStatus, type StoredDelivery } from './delivery-records.ts';
import { deliveryItem, endpointLog, inWorkspace, lateSnapshot, pendingKeys, sharedDeliveryMethods, staleClaimOf, updateDelivery } from './delivery-shared.ts';
import { creationOf, isLate, lateStatsChange, recordLateStats, statsKeysOfEndpoint, type StatsChange } from './delivery-stats-store.ts';

export * from './delivery-records.ts';

/** A finished delivery as a manual retry read it: the bucket and the count (by its status) it leaves. */
export type FinishedDelivery = Pick<Delivery, 'id' | 'endpointId' | 'createdAt'> & { status: Exclude<DeliveryStatus, 'pending'> };

/*
 * Webhook deliveries: one item each; every state change is a conditional update on its attempt token. The methods
 * come in one factory per kind of caller, the API's route groups and each stage of the webhook pipeline (fan-out,
 * worker, sweeper), so that a function's bundle holds only the methods it calls; `makeDeliveryStore` has them all.
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
        const due = pendingKeys(delivery.id, now);
        return transact(db, [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.delivery(workspaceId, delivery.id),
              UpdateExpression: `SET ${lateSnapshot(late)}#status = :pending, attemptToken = :token, nextRetryAt = :now, updatedAt = :now, manual = :true, GSI2PK = :gpk, GSI2SK = :gsk REMOVE ${FAILED_DELIVERY_INDEX.remove}`,
              // Counted as it ends up only while no earlier change was counted late: else this one must be too.
              ConditionExpression: late ? '#status = :observed' : '#status = :observed AND attribute_not_exists(rollupStatus)',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':pending': 'pending', ':token': token, ':now': now, ':true': true, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK, ':observed': delivery.status },
            },
          },
          ...(late ? lateStatsChange(db, workspaceId, delivery.endpointId, creationOf(delivery.id), uncounted) : []),
          auditPut(db, workspaceId, audit),
        ], [0]);
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
      if (statusInQuery) (conditions.push('#status = :status'), (values[':status'] = filter.status));
      if (filter.eventType) (conditions.push('eventType = :eventType'), (values[':eventType'] = filter.eventType));
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

/** What the delivery worker does with deliveries: read one, claim its attempt, record it, fail what cannot be sent. */
export function makeDeliveryWorkerStore(db: Db) {
  return {
    ...sharedDeliveryMethods(db),

    /**
     * Counts a recorded attempt's change in the bucket and hour of its delivery (`counting.deliveryId`, whose id
     * carries its creation time) when its changes are counted late (the record `recordAttempt` answered says so);
     * otherwise the bucket's rollup counts it, and this writes nothing.
     */
    async recordDeliveryStats(workspaceId: string, endpointId: string, _createdAt: string, change: StatsChange, counting: { late: boolean; deliveryId: string }): Promise<void> {
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
      const values = { ':status': outcome.status, ':one': 1, ':code': entry.statusCode, ':error': entry.error, ':entry': [entry], ':now': entry.at, ':claim': claim };
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

/** Every delivery method, the API's and the pipeline's: for `makeStore` (the admin CLI, the local stack, tests). */
export function makeDeliveryStore(db: Db, pager: Pager) {
  return { ...makeDeliveryApiStore(db, pager), ...makeDeliveryFanoutStore(db), ...makeDeliveryWorkerStore(db), ...makeDeliverySweeperStore(db) };
}

export type DeliveryStore = ReturnType<typeof makeDeliveryStore>;
