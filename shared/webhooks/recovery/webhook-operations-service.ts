import type { Principal } from '../../platform/principal.ts';
import { assertMayOperateDeliveries } from '../../access/index.ts';
import { auditEntry } from '../../audit/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import { EndpointDisabledError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import { announceAnswer } from '../../platform/idempotency-scope.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Delivery } from '../deliveries/delivery-store.ts';
import { deliveryView } from '../deliveries/delivery-records.ts';
import { deliveryIdSpan, type Recovery, type RecoveryApiStore } from './recovery-store.ts';
import type { EndpointReader, StoredEndpoint } from '../endpoints/endpoint-store.ts';
import { newAttemptToken, type DeliveryMessage, type RecoveryMessage } from '../deliveries/delivery-message.ts';
import { deliveryIdFor, pendingDelivery, pingEvent } from '../deliveries/events.ts';

/** How far back a recovery may reach (decisions.md, "Webhook operations"). */
export const RECOVERY_MAX_AGE_MS = 14 * 86_400_000;

export interface WebhookOperationsDeps {
  store: Pick<EndpointReader, 'getEndpoint'> & Pick<RecoveryApiStore, 'countFailedDeliveries' | 'startRecovery' | 'createTestDelivery'>;
  clock: Clock;
  /** Queues a delivery attempt now. */
  enqueue: (message: DeliveryMessage) => Promise<void>;
  /** Queues a recovery's first step now. */
  enqueueRecovery: (message: RecoveryMessage) => Promise<void>;
  log: Logger;
}

/** Test events and recoveries of an endpoint's failed deliveries, for people and API keys. */
export function makeWebhookOperations(deps: WebhookOperationsDeps) {
  const { store, clock } = deps;
  /** The workspace's endpoint, enabled: NOT_FOUND for another's, ENDPOINT_DISABLED while it is off. */
  const enabledEndpoint = async (principal: Principal, endpointId: string): Promise<StoredEndpoint> => {
    const endpoint = await store.getEndpoint(principal.workspaceId, endpointId);
    if (!endpoint) throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
    if (!endpoint.enabled) throw new EndpointDisabledError(`webhook endpoint ${endpointId} is disabled; enable it first`);
    return endpoint;
  };

  return {
    /**
     * A `service.ping` event to this endpoint alone, subscribed or not, through the normal pipeline: a delivery with
     * its retries and attempt log, queued now (and due on the sweeper's index, so a lost message is sent anyway).
     */
    async test(principal: Principal, endpointId: string): Promise<Delivery> {
      assertMayOperateDeliveries(principal);
      const endpoint = await enabledEndpoint(principal, endpointId);
      const now = clock.now();
      const at = iso(now);
      const audit = auditEntry(principal, 'webhook_endpoint.test', endpointId, {}, now);
      const event = pingEvent(audit.id, principal.accountId, endpointId, at);
      const delivery = pendingDelivery(
        deliveryIdFor(event.id, endpoint.id),
        endpointId,
        event,
        at,
        JSON.stringify(event),
        newAttemptToken(),
      );
      audit.metadata = { ...audit.metadata, deliveryId: delivery.id, eventId: event.id };
      const answer = announceAnswer(deliveryView(delivery));
      await store.createTestDelivery(principal.workspaceId, delivery, audit);
      try {
        await deps.enqueue({ workspaceId: principal.workspaceId, deliveryId: delivery.id, attemptToken: delivery.attemptToken! });
      } catch (error) {
        deps.log.warn('test event not queued; the sweeper will', { deliveryId: delivery.id, errorName: (error as Error).name });
      }
      return answer;
    },

    /**
     * Queues again every failed delivery of the endpoint created in [since, until]: counts them (the answer), records
     * the recovery with its audit entry, and hands the work to the worker, one step per queue message (see
     * shared/webhooks/recovery/recovery-runner.ts), so the answer comes at once however many there are.
     */
    async recover(
      principal: Principal,
      endpointId: string,
      span: { since: number; until?: number | undefined },
    ): Promise<{ queued: number }> {
      assertMayOperateDeliveries(principal);
      const now = clock.now();
      const until = span.until ?? now;
      if (span.since > now) throw new ValidationError('since: must not be in the future');
      if (until > now) throw new ValidationError('until: must not be in the future');
      if (span.since < now - RECOVERY_MAX_AGE_MS) throw new ValidationError('since: must be at most 14 days ago');
      if (until < span.since) throw new ValidationError('until: must not be before since');
      const endpoint = await enabledEndpoint(principal, endpointId);
      const ids = deliveryIdSpan(span.since, until);
      const queued = await store.countFailedDeliveries(endpoint.id, ids);
      const audit = auditEntry(
        principal,
        'webhook_endpoint.recover',
        endpointId,
        { since: iso(span.since), until: iso(until), queued },
        now,
      );
      const answer = announceAnswer({ queued });
      const recovery: Recovery = {
        id: audit.id,
        endpointId,
        ...ids,
        since: iso(span.since),
        until: iso(until),
        expected: queued,
        queued: 0,
        cursor: null,
        step: 0,
        status: queued > 0 ? 'running' : 'done',
        createdAt: iso(now),
        updatedAt: iso(now),
      };
      await store.startRecovery(principal.workspaceId, recovery, audit);
      if (queued === 0) return answer;
      try {
        await deps.enqueueRecovery({ workspaceId: principal.workspaceId, recoveryId: recovery.id, step: 0 });
      } catch (error) {
        // The recovery is on the sweeper's index: it sends this step once its grace period has passed.
        deps.log.warn('recovery not queued; the sweeper will', { recoveryId: recovery.id, errorName: (error as Error).name });
      }
      return answer;
    },
  };
}

export type WebhookOperations = ReturnType<typeof makeWebhookOperations>;
