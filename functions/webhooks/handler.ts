import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeWebhookService } from '../../shared/services/webhooks.ts';
import { webhookToolsFromConfig } from '../../shared/webhooks/tools.ts';
import { makeWebhookRoutes } from './routes.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';
import { makeWebhookStore } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock, authenticate } = apiRuntime();
const store = { ...makeWebhookStore(db, pager), ...makeDeliveryStore(db, pager) };
const { cipher, checkUrl } = webhookToolsFromConfig(config);

/** Lambda entry of the webhooks route group. */
export const handler = makeRouteGroupHandler(makeWebhookRoutes(makeWebhookService({ store, cipher, clock, checkUrl })), { authenticate });
