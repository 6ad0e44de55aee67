import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeDeliveryService } from '../../shared/services/webhooks.ts';
import { deliveryQueueFromConfig, enqueueNow } from '../../shared/webhooks/runtime.ts';
import { makeDeliveryRoutes } from './routes.ts';

const { config, store, clock, authenticate } = runtime();
const enqueue = enqueueNow(deliveryQueueFromConfig(config, clock), clock);

/** Lambda entry of the webhook-deliveries route group. */
export const handler = makeRouteGroupHandler(makeDeliveryRoutes(makeDeliveryService({ store, clock, enqueue })), { authenticate });
