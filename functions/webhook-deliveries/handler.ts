import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeDeliveryService } from '../../shared/services/webhooks.ts';
import { immediateQueueFromConfig, enqueueNow } from '../../shared/webhooks/immediate-queue.ts';
import { makeDeliveryRoutes } from './routes.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';
import { makeWebhookStore } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeWebhookStore(db, pager), ...makeDeliveryStore(db, pager) };
const enqueue = enqueueNow(immediateQueueFromConfig(config, clock), clock);

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue })), { authenticate, idempotency });
