import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { iso, type Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import { ENTITY } from '../../platform/store/keys.ts';
import { insertedAudits } from '../../audit/index.ts';
import type { StoredEndpoint } from '../endpoints/endpoint-store.ts';
import type { EndpointFanoutStore } from '../endpoints/endpoint-pipeline-store.ts';
import type { DeliveryFanoutStore } from './delivery-pipeline-store.ts';
import { AUDIT_CHANGE_METRIC, countLine } from '../../platform/metrics-env.ts';
import { SEND_BATCH } from './delivery-queue.ts';
import { firstAttemptToken, type DeliveryMessage } from './delivery-message.ts';
import { changesCurrentValue, dependentEvent, dependentsOfChange, type DependentReads } from './dependent-events.ts';
import { deliveryIdFor, eventFromAudit, pendingDelivery, type AuditRecord, type WebhookEvent } from './events.ts';

export interface FanoutDeps {
  store: Pick<EndpointFanoutStore, 'listEndpoints'> & Pick<DeliveryFanoutStore, 'createDelivery' | 'markDeliveryDue'>;
  /** Queues first attempts for now; answers the indexes of the messages it could not queue. */
  enqueueAll: (messages: readonly DeliveryMessage[]) => Promise<number[]>;
  log: Logger;
  clock: Clock;
  metrics: FanoutMetrics;
  /** The reverse index of secret references: a value change tells the secrets that depend on it. */
  references: DependentReads;
}

/** What the fan-out counts besides its deliveries. */
export interface FanoutMetrics {
  /** An audit entry was overwritten or removed on the table (`auditChangeOf`): the alarm `audit-entry-changed`. */
  auditEntryChanged(): void;
}

/**
 * The fan-out's metrics as CloudWatch Embedded Metric Format lines on stdout (the worker's format, see
 * shared/webhooks/deliveries/metrics.ts): one document per changed audit entry, written at once, since one is already too many.
 */
export function makeFanoutMetrics(write: (line: string) => void = (line) => void process.stdout.write(line)): FanoutMetrics {
  return {
    auditEntryChanged() {
      write(countLine(AUDIT_CHANGE_METRIC));
    },
  };
}

/** How an audit entry changed on the table. */
export type AuditChange = 'overwritten' | 'removed';

/**
 * The change a stream record makes to an existing audit entry, if any. The service only ever inserts audit entries
 * (conditional puts; IAM denies every role updating or deleting one), so a MODIFY (an update, or a put over the
 * entry: a put that changes nothing makes no record at all) or a REMOVE of one means the log was changed past
 * both. A removal by DynamoDB's TTL, which the stream marks with the service principal `dynamodb.amazonaws.com`,
 * is not one (audit entries carry no `ttl` today; if they ever expire, that expiry is no tampering).
 */
export function auditChangeOf(record: DynamoDBRecord): AuditChange | undefined {
  if (record.eventName !== 'MODIFY' && record.eventName !== 'REMOVE') return undefined;
  if (record.dynamodb?.OldImage?.type?.S !== ENTITY.audit) return undefined;
  const byTtl = record.userIdentity?.type === 'Service' && record.userIdentity.principalId === 'dynamodb.amazonaws.com';
  if (record.eventName === 'REMOVE' && byTtl) return undefined;
  return record.eventName === 'MODIFY' ? 'overwritten' : 'removed';
}

/** Logs a changed audit entry by its keys and the stream record (never an image: those hold the entry) and counts it. */
function reportAuditChange(deps: Pick<FanoutDeps, 'log' | 'metrics'>, record: DynamoDBRecord, change: AuditChange): void {
  deps.log.error('audit entry changed on the table', {
    change,
    partition: record.dynamodb?.Keys?.PK?.S,
    auditId: record.dynamodb?.Keys?.SK?.S,
    sequenceNumber: record.dynamodb?.SequenceNumber,
  });
  deps.metrics.auditEntryChanged();
}

/** Enabled endpoints subscribed to the event; the disabled-endpoint event never goes to the endpoint it is about. */
function subscribers(endpoints: readonly StoredEndpoint[], event: WebhookEvent): StoredEndpoint[] {
  return endpoints.filter(
    (endpoint) =>
      endpoint.enabled &&
      endpoint.events.includes(event.type) &&
      !(event.type === 'service.webhook_endpoint.disabled' && event.data.endpointId === endpoint.id),
  );
}

/**
 * The fan-out's messages, sent as soon as ten are waiting (so a large stream batch does not hold back its first
 * deliveries) and the rest at the end. `flush` answers the first record whose message SQS did not take (Infinity
 * when it took them all).
 */
function messageBatches(deps: Pick<FanoutDeps, 'enqueueAll' | 'log' | 'store' | 'clock'>) {
  let waiting: { record: number; message: DeliveryMessage }[] = [];
  let firstRefused = Infinity;
  const send = async (batch: typeof waiting) => {
    let refused: number[];
    try {
      refused = await deps.enqueueAll(batch.map((entry) => entry.message));
    } catch (error) {
      // Nothing of the batch is known to be queued: every message counts as refused.
      deps.log.error('fan-out could not queue a batch', { messages: batch.length, errorName: (error as Error).name });
      refused = batch.map((_, index) => index);
    }
    if (refused.length > 0) deps.log.error('fan-out could not queue every delivery', { refused: refused.length });
    for (const index of refused) firstRefused = Math.min(firstRefused, batch[index]!.record);
    await markDue(
      deps,
      refused.map((index) => batch[index]!.message),
    );
  };
  return {
    async add(record: number, messages: readonly DeliveryMessage[]) {
      waiting.push(...messages.map((message) => ({ record, message })));
      const full = waiting.length - (waiting.length % SEND_BATCH);
      if (full === 0) return;
      const batch = waiting.slice(0, full);
      waiting = waiting.slice(full);
      await send(batch);
    },
    async flush(): Promise<number> {
      if (waiting.length > 0) await send(waiting.splice(0));
      return firstRefused;
    },
  };
}

/**
 * Hands first attempts whose message may not have been sent to the sweeper (`markDeliveryDue`), so that neither a
 * stream retry that no longer subscribes the endpoint nor a record whose retries run out can leave one waiting with
 * nothing to send it. A failed mark is logged; the stream retry remains.
 */
async function markDue(deps: Pick<FanoutDeps, 'store' | 'log' | 'clock'>, messages: readonly DeliveryMessage[]): Promise<void> {
  const now = iso(deps.clock.now());
  const marks = await Promise.allSettled(messages.map((m) => deps.store.markDeliveryDue(m.workspaceId, m.deliveryId, m.attemptToken, now)));
  const failed = marks.filter((mark) => mark.status === 'rejected').length;
  if (failed > 0) deps.log.error('fan-out could not hand deliveries to the sweeper', { failed });
}

/**
 * The stream fan-out: one pending delivery per subscribed, enabled endpoint for every event-worthy audit record,
 * then its first attempt's message, the batch's messages ten to a request; and an audit entry that changes on the
 * table is reported (`auditChangeOf`) and otherwise left alone. Idempotent: event and delivery ids derive
 * from the audit id, the delivery is a conditional put, and the first attempt's token from the delivery id, so a
 * record seen again queues again only deliveries whose first attempt has not started (a duplicate the worker drops).
 * The first record that failed, or whose message SQS did not take, is reported so Lambda retries from it.
 */
export function makeFanout(deps: FanoutDeps) {
  return async (records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse> => {
    const endpointsOf = new Map<string, Promise<StoredEndpoint[]>>();
    const queue = messageBatches(deps);
    let failedAt = records.length;
    for (let i = 0; i < records.length; i++) {
      const change = auditChangeOf(records[i]!);
      if (change) reportAuditChange(deps, records[i]!, change);
      try {
        await queue.add(i, await deliveriesOf(records[i]!, endpointsOf));
      } catch (error) {
        deps.log.error('fan-out failed for a stream record', {
          sequenceNumber: records[i]!.dynamodb?.SequenceNumber,
          errorName: (error as Error).name,
        });
        failedAt = i;
        break;
      }
    }
    const retryFrom = Math.min(failedAt, await queue.flush());
    return {
      batchItemFailures: retryFrom < records.length ? [{ itemIdentifier: records[retryFrom]!.dynamodb?.SequenceNumber ?? '' }] : [],
    };
  };

  /** Creates the deliveries of the record's entries; answers the messages they need. */
  async function deliveriesOf(record: DynamoDBRecord, endpointsOf: Map<string, Promise<StoredEndpoint[]>>): Promise<DeliveryMessage[]> {
    const messages: DeliveryMessage[] = [];
    for (const audit of insertedAudits(record)) messages.push(...(await deliveriesOfEntry(audit, endpointsOf)));
    return messages;
  }

  /** Creates an entry's deliveries (side by side: they are independent); answers the messages they need. */
  async function deliveriesOfEntry(audit: AuditRecord, endpointsOf: Map<string, Promise<StoredEndpoint[]>>): Promise<DeliveryMessage[]> {
    const event = eventFromAudit(audit);
    if (!event) return [];
    if (!endpointsOf.has(audit.workspaceId)) endpointsOf.set(audit.workspaceId, deps.store.listEndpoints(audit.workspaceId));
    const endpoints = await endpointsOf.get(audit.workspaceId)!;
    const events = [event, ...(await dependentEvents(audit, event, endpoints))];
    const created = await Promise.allSettled(
      events.flatMap((each) => {
        const body = JSON.stringify(each);
        return subscribers(endpoints, each).map(async (endpoint) => {
          const deliveryId = deliveryIdFor(each.id, endpoint.id);
          const attemptToken = firstAttemptToken(deliveryId);
          const delivery = pendingDelivery(deliveryId, endpoint.id, each, audit.createdAt, body, attemptToken);
          const waiting = await deps.store.createDelivery(audit.workspaceId, delivery, Date.parse(audit.createdAt), deps.clock.now());
          return waiting ? { workspaceId: audit.workspaceId, deliveryId, attemptToken } : undefined;
        });
      }),
    );
    const messages = created.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
    const failure = created.find((result) => result.status === 'rejected');
    if (failure) {
      // The record fails and is retried; the deliveries it did write go to the sweeper meanwhile.
      await markDue(deps, messages);
      throw failure.reason;
    }
    return messages;
  }

  /**
   * The `service.secret.rotate` events of the secrets that depend on a value change; the index is walked only when
   * an enabled endpoint subscribes to them, so a workspace that does not listen pays no read.
   */
  async function dependentEvents(audit: AuditRecord, event: WebhookEvent, endpoints: readonly StoredEndpoint[]): Promise<WebhookEvent[]> {
    if (!changesCurrentValue(audit)) return [];
    if (!endpoints.some((endpoint) => endpoint.enabled && endpoint.events.includes('service.secret.rotate'))) return [];
    const dependents = await dependentsOfChange(deps.references, audit);
    return dependents.map((dependent) => dependentEvent(audit, event, dependent));
  }
}
