import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { requiredSetting } from '../../shared/platform/config.ts';
import { loadOnce, onFirstUse } from '../../shared/platform/on-first-use.ts';
import { makeDeliveryService } from '../../shared/webhooks/endpoints/webhook-service.ts';
import { makeDeliveryRoutes } from './routes.ts';
import type { RecoveryMessage, StatsRollupMessage } from '../../shared/webhooks/deliveries/delivery-message.ts';
import { logger } from '../../shared/platform/logger.ts';
import { makeDeliveryApiStore } from '../../shared/webhooks/deliveries/delivery-store.ts';
import { makeEndpointReader } from '../../shared/webhooks/endpoints/endpoint-store.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeEndpointReader(db), ...makeDeliveryApiStore(db, pager) };

// Only a manual retry, a test event, a recovery or a statistics read far behind the rollup queues anything, so the SQS
// client and the queue's code load on the first of them: a cold start that lists or reads deliveries does without
// them. A missing queue URL still fails at cold start.
requiredSetting(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL');
const { enqueue, enqueueRecovery, enqueueStatsRollup } = onFirstUse(['enqueue', 'enqueueRecovery', 'enqueueStatsRollup'], async () => {
  const { immediateQueueFromConfig, enqueueNow } = await import('../../shared/webhooks/deliveries/immediate-queue.ts');
  const queue = immediateQueueFromConfig(config, clock);
  return {
    enqueue: enqueueNow(queue, clock),
    enqueueRecovery: (message: RecoveryMessage) => queue.enqueueRecovery(message),
    enqueueStatsRollup: (message: StatsRollupMessage) => queue.enqueueStatsRollup(message, clock.now()),
  };
});
// Test events, recoveries and statistics are rare too: their services and stores load (one chunk, ./rare.ts) on the
// first of them.
const rare = loadOnce(() => import('./rare.ts'));
const operations = onFirstUse(['test', 'recover'], async () => {
  const { makeWebhookOperations, makeRecoveryApiStore } = await rare();
  return makeWebhookOperations({ store: { ...store, ...makeRecoveryApiStore(db) }, clock, enqueue, enqueueRecovery, log: logger });
});
const stats = onFirstUse(['stats'], async () => {
  const { makeDeliveryStatsService, makeDeliveryStatsReader } = await rare();
  return makeDeliveryStatsService({ store: { ...store, ...makeDeliveryStatsReader(db) }, clock, requestRollup: enqueueStatsRollup });
});

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue }), operations, stats), {
  authenticate,
  idempotency,
});
