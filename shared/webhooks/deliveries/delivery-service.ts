import type { Principal } from '../../platform/principal.ts';
import { assertMayOperateDeliveries } from '../../access/index.ts';
import { auditEntry } from '../../audit/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import { AlreadyQueuedError, EndpointDisabledError, NotFoundError } from '../../platform/errors.ts';
import { announceAnswer } from '../../platform/idempotency-scope.ts';
import type { PageRequest } from '../../platform/store/query.ts';
import type { EndpointReader } from '../endpoints/endpoint-store.ts';
import { newAttemptToken, type DeliveryMessage } from './delivery-message.ts';
import { deliveryView, type Delivery, type DeliveryStatus } from './delivery-records.ts';
import type { DeliveryApiStore } from './delivery-store.ts';

export interface DeliveryServiceDeps {
  store: Pick<EndpointReader, 'getEndpoint'> & Pick<DeliveryApiStore, 'listDeliveries' | 'getDelivery' | 'retryNow'>;
  clock: Clock;
  /** Queues a delivery attempt (a manual retry: now, through SQS). */
  enqueue: (message: DeliveryMessage) => Promise<void>;
}

/** The delivery log and manual retries. */
export function makeDeliveryService(deps: DeliveryServiceDeps) {
  const { store, clock } = deps;
  /** A delivery as the API shows it: every attempt, never the attempt token. */
  async function getDelivery(principal: Principal, deliveryId: string): Promise<Delivery> {
    assertMayOperateDeliveries(principal);
    const delivery = await store.getDelivery(principal.workspaceId, deliveryId);
    if (!delivery) throw new NotFoundError(`webhook delivery ${deliveryId} was not found`);
    return deliveryView(delivery);
  }

  return {
    /** The workspace's deliveries; an `endpointId` filter must name one of its own endpoints (else NOT_FOUND). */
    async listDeliveries(
      principal: Principal,
      filter: { endpointId?: string; status?: DeliveryStatus; eventType?: string },
      page: PageRequest,
    ) {
      assertMayOperateDeliveries(principal);
      if (filter.endpointId && !(await store.getEndpoint(principal.workspaceId, filter.endpointId))) {
        throw new NotFoundError(`webhook endpoint ${filter.endpointId} was not found`);
      }
      return store.listDeliveries(principal.workspaceId, filter, page);
    },

    getDelivery,

    /** One more attempt now for a finished delivery: 409 while it is pending or its endpoint is off. */
    async retry(principal: Principal, deliveryId: string): Promise<Delivery> {
      assertMayOperateDeliveries(principal);
      const ws = principal.workspaceId;
      const delivery = await store.getDelivery(ws, deliveryId);
      if (!delivery) throw new NotFoundError(`webhook delivery ${deliveryId} was not found`);
      const endpoint = await store.getEndpoint(ws, delivery.endpointId);
      if (!endpoint?.enabled) throw new EndpointDisabledError(`webhook endpoint ${delivery.endpointId} is disabled; enable it first`);
      if (delivery.status === 'pending') throw new AlreadyQueuedError(`webhook delivery ${deliveryId} is already queued`);
      const now = clock.now();
      const attemptToken = newAttemptToken();
      const audit = auditEntry(
        principal,
        'webhook_delivery.retry',
        deliveryId,
        { endpointId: delivery.endpointId, eventId: delivery.eventId },
        now,
      );
      // What the retry makes of the delivery, answered (and recorded) as of its commit.
      announceAnswer({ ...delivery, status: 'pending', nextRetryAt: iso(now), updatedAt: iso(now) });
      // The status read says which of its hour's counts the retry takes it out of; the write holds only from it.
      const finished = { id: deliveryId, endpointId: delivery.endpointId, createdAt: delivery.createdAt, status: delivery.status };
      if (!(await store.retryNow(ws, finished, attemptToken, iso(now), audit))) {
        throw new AlreadyQueuedError(`webhook delivery ${deliveryId} is already queued`);
      }
      // If this send is lost, the sweeper finds the delivery due and queues it again.
      await deps.enqueue({ workspaceId: ws, deliveryId, attemptToken });
      return getDelivery(principal, deliveryId);
    },
  };
}

export type DeliveryService = ReturnType<typeof makeDeliveryService>;
