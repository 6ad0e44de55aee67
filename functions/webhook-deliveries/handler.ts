import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { requiredSetting } from '../../shared/config.ts';
import { onFirstUse } from '../../shared/on-first-use.ts';
import { makeDeliveryService } from '../../shared/services/webhooks.ts';
import { makeDeliveryRoutes } from './routes.ts';
import { makeDeliveryApiStore } from '../../shared/store/deliveries.ts';
import { makeEndpointReader } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeEndpointReader(db), ...makeDeliveryApiStore(db, pager) };

// Only a manual retry queues a delivery, so the SQS client and the queue's code load on the first retry: a cold start
// that lists or reads deliveries does without them. A missing queue URL still fails at cold start.
requiredSetting(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL');
const { enqueue } = onFirstUse(['enqueue'], async () => {
  const { immediateQueueFromConfig, enqueueNow } = await import('../../shared/webhooks/immediate-queue.ts');
  return { enqueue: enqueueNow(immediateQueueFromConfig(config, clock), clock) };
});

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue })), { authenticate, idempotency });
