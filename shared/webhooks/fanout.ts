import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Store } from '../store/index.ts';
import type { StoredDelivery } from '../store/deliveries.ts';
import { ENTITY } from '../store/keys.ts';
import type { StoredEndpoint } from '../store/webhooks.ts';
import type { DeliveryMessage } from './delivery-queue.ts';
import { deliveryIdFor, eventFromAudit, type AuditRecord, type WebhookEvent } from './events.ts';

export interface FanoutDeps {
  store: Pick<Store, 'listEndpoints' | 'createDelivery'>;
  enqueue: (message: DeliveryMessage) => Promise<void>;
  newToken: () => string;
  log: Logger;
}

/** The audit record a stream record inserted, if any: audit entries are the source of every event. */
function insertedAudit(record: DynamoDBRecord): AuditRecord | undefined {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return undefined;
  const item = unmarshall(record.dynamodb.NewImage as never);
  return item.type === ENTITY.audit ? (item as AuditRecord) : undefined;
}

/** Enabled endpoints subscribed to the event; the disabled-endpoint event never goes to the endpoint it is about. */
function subscribers(endpoints: readonly StoredEndpoint[], event: WebhookEvent): StoredEndpoint[] {
  return endpoints.filter(
    (endpoint) => endpoint.enabled && endpoint.events.includes(event.type) && !(event.type === 'service.webhook_endpoint.disabled' && event.data.endpointId === endpoint.id),
  );
}

/** A new delivery of `event` to one endpoint, due now. */
function pendingDelivery(id: string, endpointId: string, event: WebhookEvent, createdAt: string, body: string, attemptToken: string): StoredDelivery {
  return {
    id,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    status: 'pending',
    attempts: 0,
    statusCode: null,
    lastError: null,
    nextRetryAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    attemptLog: [],
    body,
    attemptToken,
    manual: false,
  };
}

/**
 * The stream fan-out: one pending delivery per subscribed, enabled endpoint for every event-worthy audit record,
 * then one queue message each. Idempotent: event and delivery ids derive from the audit id, the delivery is a
 * conditional put, and only a newly created delivery is queued (one created by an earlier, interrupted run is
 * found by the sweeper). Failed records are reported so Lambda retries from the first of them.
 */
export function makeFanout(deps: FanoutDeps) {
  return async (records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse> => {
    const endpointsOf = new Map<string, Promise<StoredEndpoint[]>>();
    for (const record of records) {
      try {
        const audit = insertedAudit(record);
        const event = audit && eventFromAudit(audit);
        if (!audit || !event) continue;
        if (!endpointsOf.has(audit.workspaceId)) endpointsOf.set(audit.workspaceId, deps.store.listEndpoints(audit.workspaceId));
        const body = JSON.stringify(event);
        // Deliveries to different endpoints are independent: made and queued side by side.
        await Promise.all(
          subscribers(await endpointsOf.get(audit.workspaceId)!, event).map(async (endpoint) => {
            const deliveryId = deliveryIdFor(event.id, endpoint.id);
            const attemptToken = deps.newToken();
            const created = await deps.store.createDelivery(audit.workspaceId, pendingDelivery(deliveryId, endpoint.id, event, audit.createdAt, body, attemptToken), Date.parse(audit.createdAt));
            if (created) await deps.enqueue({ workspaceId: audit.workspaceId, deliveryId, attemptToken });
          }),
        );
      } catch (error) {
        deps.log.error('fan-out failed for a stream record', { sequenceNumber: record.dynamodb?.SequenceNumber, errorName: (error as Error).name });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
