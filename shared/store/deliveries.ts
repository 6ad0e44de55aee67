import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../prefetch.ts';
import { auditPut, type AuditEntry } from './audit.ts';
import { sendConditional, transact } from './conditional.ts';
import { pick } from './items.ts';
import type { Pager } from './pager.ts';
import { queryAll, type Page, type PageRequest } from './query.ts';
import { batchDelete, getItem } from './reads.ts';
import type { Db } from './send.ts';
import { ENTITY, gsi1, gsi2, keys, patterns } from './keys.ts';

/** One attempt as the delivery log shows it. */
export interface AttemptEntry {
  attempt: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export type DeliveryStatus = 'pending' | 'success' | 'failed';

/** A delivery as the API shows it (decisions.md). */
export interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  statusCode: number | null;
  lastError: string | null;
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  attemptLog: AttemptEntry[];
}

/** What the worker also needs: the exact body every attempt sends, and who may send the next attempt. */
export interface StoredDelivery extends Delivery {
  body: string;
  attemptToken: string | null;
  /** Set by a manual retry: that single attempt does not schedule further ones. */
  manual: boolean;
}

const FIELDS: readonly (keyof Delivery)[] = [
  'id', 'endpointId', 'eventId', 'eventType', 'status', 'attempts', 'statusCode', 'lastError', 'nextRetryAt', 'createdAt', 'updatedAt', 'attemptLog',
];

/** Attempt tokens of attempts in flight start with this; queued messages never carry one. */
export const CLAIM_PREFIX = 'claim-';

/** Deliveries and their attempts are kept 30 days (api.md section 8), then DynamoDB TTL removes them. */
export const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

export const toDelivery = (item: Record<string, unknown>): Delivery => ({ ...pick<Delivery>(item, FIELDS)!, attemptLog: (item.attemptLog as AttemptEntry[]) ?? [] });
const toStored = (item: Record<string, unknown> | undefined): StoredDelivery | undefined =>
  item && { ...toDelivery(item), body: item.body as string, attemptToken: (item.attemptToken as string) ?? null, manual: item.manual === true };

/** Webhook deliveries: one item each; every state change is a conditional update on its attempt token. */
export function makeDeliveryStore(db: Db, pager: Pager) {
  /** A conditional update of one delivery: its new state, or undefined when it moved on (the condition failed). */
  const update = async (workspaceId: string, deliveryId: string, input: { set: string; remove?: string; condition: string; values: Record<string, unknown> }) => {
    const out = await sendConditional<{ Attributes?: Record<string, unknown> }>(
      db,
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.delivery(workspaceId, deliveryId),
        UpdateExpression: `SET ${input.set}${input.remove ? ` REMOVE ${input.remove}` : ''}`,
        ConditionExpression: input.condition,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: input.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toStored(out?.Attributes);
  };
  const pendingKeys = (deliveryId: string, nextRetryAt: string) => gsi2.dueDelivery(deliveryId, nextRetryAt);

  return {
    /** Creates a pending delivery unless it exists already (a stream batch seen twice); answers whether it was new. */
    async createDelivery(workspaceId: string, delivery: StoredDelivery, createdAtMs: number): Promise<boolean> {
      const created = await sendConditional(
        db,
        new PutCommand({
          TableName: db.tableName,
          Item: {
            ...keys.delivery(workspaceId, delivery.id),
            ...gsi1.endpointDelivery(delivery.endpointId, delivery.id),
            ...pendingKeys(delivery.id, delivery.nextRetryAt!),
            type: ENTITY.delivery,
            workspaceId,
            ...delivery,
            ttl: Math.floor(createdAtMs / 1000) + DELIVERY_RETENTION_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return created !== undefined;
    },

    async getDelivery(workspaceId: string, deliveryId: string): Promise<StoredDelivery | undefined> {
      return toStored(await getItem(db, keys.delivery(workspaceId, deliveryId)));
    },

    /**
     * Takes the attempt that `token` names, swapping in `claim`; undefined if the delivery moved on (drop the message).
     * The claim is a lease: the due time moves to now, so the sweeper leaves an attempt in flight alone for its grace
     * period and only takes it back if the worker died.
     */
    claimAttempt(workspaceId: string, deliveryId: string, token: string, claim: string, now: string) {
      const due = pendingKeys(deliveryId, now);
      return update(workspaceId, deliveryId, {
        set: 'attemptToken = :claim, updatedAt = :now, nextRetryAt = :now, GSI2PK = :gpk, GSI2SK = :gsk',
        condition: '#status = :pending AND attemptToken = :token',
        values: { ':claim': claim, ':now': now, ':pending': 'pending', ':token': token, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK },
      });
    },

    /** Records a finished attempt by the holder of `claim`: success, the next pending attempt, or failed. */
    recordAttempt(
      workspaceId: string,
      deliveryId: string,
      claim: string,
      entry: AttemptEntry,
      outcome: { status: 'success' | 'failed' } | { status: 'pending'; nextRetryAt: string; attemptToken: string },
    ) {
      const common = '#status = :status, attempts = attempts + :one, statusCode = :code, lastError = :error, attemptLog = list_append(attemptLog, :entry), updatedAt = :now';
      const values = { ':status': outcome.status, ':one': 1, ':code': entry.statusCode, ':error': entry.error, ':entry': [entry], ':now': entry.at, ':claim': claim };
      if (outcome.status === 'pending') {
        const due = pendingKeys(deliveryId, outcome.nextRetryAt);
        return update(workspaceId, deliveryId, {
          set: `${common}, nextRetryAt = :next, attemptToken = :token, GSI2PK = :gpk, GSI2SK = :gsk`,
          condition: 'attemptToken = :claim',
          values: { ...values, ':next': outcome.nextRetryAt, ':token': outcome.attemptToken, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK },
        });
      }
      return update(workspaceId, deliveryId, {
        set: common,
        remove: 'nextRetryAt, attemptToken, GSI2PK, GSI2SK, manual',
        condition: 'attemptToken = :claim',
        values,
      });
    },

    /**
     * Fails a pending delivery without an attempt (its endpoint was paused, switched off or removed). An attempt in
     * flight (claimed) is left to finish and record its result; the worker then fails it when the next attempt finds
     * the endpoint off.
     */
    failPending(workspaceId: string, deliveryId: string, reason: string, now: string) {
      return update(workspaceId, deliveryId, {
        set: '#status = :failed, lastError = :reason, updatedAt = :now',
        remove: 'nextRetryAt, attemptToken, GSI2PK, GSI2SK, manual',
        condition: '#status = :pending AND NOT begins_with(attemptToken, :claimed)',
        values: { ':failed': 'failed', ':reason': reason, ':now': now, ':pending': 'pending', ':claimed': CLAIM_PREFIX },
      });
    },

    /** Hands a due attempt a new token (the sweeper): only if nobody moved it since `observedToken` was read. */
    requeue(workspaceId: string, deliveryId: string, observedToken: string, token: string, now: string) {
      const due = pendingKeys(deliveryId, now);
      return update(workspaceId, deliveryId, {
        set: 'attemptToken = :token, nextRetryAt = :now, updatedAt = :now, GSI2PK = :gpk, GSI2SK = :gsk',
        condition: '#status = :pending AND attemptToken = :observed',
        values: { ':token': token, ':now': now, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK, ':pending': 'pending', ':observed': observedToken },
      });
    },

    /**
     * A manual retry: a finished delivery becomes pending for one attempt now, with its audit entry. Answers false
     * when it was pending already (a concurrent retry won).
     */
    async retryNow(workspaceId: string, deliveryId: string, token: string, now: string, audit: AuditEntry): Promise<boolean> {
      const due = pendingKeys(deliveryId, now);
      const failed = await transact(db, [
        {
          Update: {
            TableName: db.tableName,
            Key: keys.delivery(workspaceId, deliveryId),
            UpdateExpression: 'SET #status = :pending, attemptToken = :token, nextRetryAt = :now, updatedAt = :now, manual = :true, GSI2PK = :gpk, GSI2SK = :gsk',
            ConditionExpression: '#status IN (:success, :failed)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending', ':token': token, ':now': now, ':true': true, ':gpk': due.GSI2PK, ':gsk': due.GSI2SK, ':success': 'success', ':failed': 'failed' },
          },
        },
        auditPut(db, workspaceId, audit),
      ], [0]);
      return failed === undefined;
    },

    /** The workspace's deliveries newest first, or one endpoint's (GSI1) when `endpointId` is given. */
    async listDeliveries(
      workspaceId: string,
      filter: { endpointId?: string | undefined; status?: DeliveryStatus | undefined; eventType?: string | undefined },
      page: PageRequest,
    ): Promise<Page<Delivery>> {
      const conditions: string[] = ['workspaceId = :ws'];
      const values: Record<string, unknown> = { ':ws': workspaceId };
      if (filter.status) (conditions.push('#status = :status'), (values[':status'] = filter.status));
      if (filter.eventType) (conditions.push('eventType = :eventType'), (values[':eventType'] = filter.eventType));
      const source = filter.endpointId ? patterns.deliveriesByEndpoint(filter.endpointId) : patterns.deliveriesByWorkspace(workspaceId);
      const result = await pager.queryPage<Record<string, unknown>>({
        scope: `deliveries:${workspaceId}:${JSON.stringify(filter)}`,
        ...source,
        filter: {
          FilterExpression: conditions.join(' AND '),
          ...(filter.status ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: values,
        },
        ...page,
      });
      return { ...result, items: result.items.map(toDelivery) };
    },

    /** Every pending delivery of an endpoint (GSI1, newest first): to fail them when it is paused or switched off. */
    async pendingDeliveryIds(endpointId: string): Promise<string[]> {
      const items = await queryAll<{ id: string }>(db, patterns.deliveriesByEndpoint(endpointId), {
        filter: { FilterExpression: '#status = :pending', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':pending': 'pending' } },
        projection: ['id'],
      });
      return items.map((item) => item.id);
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

    /** Deletes an endpoint's delivery log. */
    async deleteEndpointDeliveries(workspaceId: string, endpointId: string): Promise<number> {
      const items = await queryAll<ItemKey>(db, patterns.deliveriesByEndpoint(endpointId), { projection: ['PK', 'SK'] });
      // GSI1 holds only this endpoint's deliveries; the partition check keeps the delete inside the caller's workspace.
      await batchDelete(db, items.filter((item) => item.PK === patterns.deliveriesByWorkspace(workspaceId).pk));
      return items.length;
    },
  };
}

export type DeliveryStore = ReturnType<typeof makeDeliveryStore>;
