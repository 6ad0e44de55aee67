import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { requiredSetting } from '../../shared/config.ts';
import { onFirstUse } from '../../shared/on-first-use.ts';
import { makeDeliveryService } from '../../shared/services/webhooks.ts';
import { makeDeliveryRoutes } from './routes.ts';
import { makeDeliveryStatsService } from '../../shared/services/delivery-stats.ts';
import { makeDeliveryStatsReader } from '../../shared/store/delivery-stats.ts';
import type { RecoveryMessage } from '../../shared/webhooks/delivery-message.ts';
import { logger } from '../../shared/logger.ts';
import { makeDeliveryApiStore } from '../../shared/store/deliveries.ts';
import { makeEndpointReader } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeEndpointReader(db), ...makeDeliveryApiStore(db, pager) };

// Only a manual retry, a test event or a recovery queues anything, so the SQS client and the queue's code load on the
// first of them: a cold start that lists or reads deliveries does without them. A missing queue URL still fails at cold start.
requiredSetting(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL');
const { enqueue, enqueueRecovery } = onFirstUse(['enqueue', 'enqueueRecovery'], async () => {
  const { immediateQueueFromConfig, enqueueNow } = await import('../../shared/webhooks/immediate-queue.ts');
  const queue = immediateQueueFromConfig(config, clock);
  return { enqueue: enqueueNow(queue, clock), enqueueRecovery: (message: RecoveryMessage) => queue.enqueueRecovery(message) };
});
// Test events and recoveries are rare too: their service and store load on the first of them.
const operations = onFirstUse(['test', 'recover'], async () => {
  const [{ makeWebhookOperations }, { makeRecoveryApiStore }] = await Promise.all([
    import('../../shared/services/webhook-operations.ts'),
    import('../../shared/store/delivery-recovery.ts'),
  ]);
  return makeWebhookOperations({ store: { ...store, ...makeRecoveryApiStore(db) }, clock, enqueue, enqueueRecovery, log: logger });
});
const stats = makeDeliveryStatsService({ store: { ...store, ...makeDeliveryStatsReader(db) }, clock });

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue }), operations, stats), { authenticate, idempotency });
