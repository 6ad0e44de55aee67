import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { requiredSetting } from '../../shared/platform/config.ts';
import { loadOnce, onFirstUse } from '../../shared/platform/on-first-use.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import {
  makeDeliveryApiStore,
  makeDeliveryService,
  makeEndpointReader,
  type RecoveryMessage,
  type StatsRollupMessage,
} from '../../shared/webhooks/index.ts';
import { makeDeliveryRoutes } from './routes.ts';
import { logger } from '../../shared/platform/logger.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
// The stores of the cold start: endpoints read, the delivery log and manual retries (./rare.ts adds the rest).
const store = composeStores(makeEndpointReader(db), makeDeliveryApiStore(db, pager));

// Only a manual retry, a test event, a recovery or a statistics read far behind the rollup queues anything, so the SQS
// client and the queue's code (./queue.ts) load on the first of them: a cold start that lists or reads deliveries
// does without them. A missing queue URL still fails at cold start.
requiredSetting(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL');
const { enqueue, enqueueRecovery, enqueueStatsRollup } = onFirstUse(['enqueue', 'enqueueRecovery', 'enqueueStatsRollup'], async () => {
  const { immediateQueueFromConfig, enqueueNow } = await import('./queue.ts');
  const queue = immediateQueueFromConfig(config, clock);
  return {
    enqueue: enqueueNow(queue, clock),
    enqueueRecovery: (message: RecoveryMessage) => queue.enqueueRecovery(message),
    enqueueStatsRollup: (message: StatsRollupMessage) => queue.enqueueStatsRollup(message, clock.now()),
  };
});
// Test events, recoveries and statistics are rare too: their services and stores load (one chunk, ./rare.ts) on the
// first of them.
const rare = loadOnce(async () => {
  const module = await import('./rare.ts');
  return { ...module, all: module.withRareStores(db, store) };
});
const operations = onFirstUse(['test', 'recover'], async () => {
  const { makeWebhookOperations, all } = await rare();
  return makeWebhookOperations({ store: all, clock, enqueue, enqueueRecovery, log: logger });
});
const stats = onFirstUse(['stats'], async () => {
  const { makeDeliveryStatsService, all } = await rare();
  return makeDeliveryStatsService({ store: all, clock, requestRollup: enqueueStatsRollup });
});

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue }), operations, stats), {
  authenticate,
  idempotency,
});
