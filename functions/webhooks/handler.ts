import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeWebhookService } from '../../shared/services/webhooks.ts';
import { webhookToolsFromConfig } from '../../shared/webhooks/runtime.ts';
import { makeWebhookRoutes } from './routes.ts';

const { config, store, clock, authenticate } = runtime();
const { cipher, checkUrl } = webhookToolsFromConfig(config);

/** Lambda entry of the webhooks route group. */
export const handler = makeRouteGroupHandler(makeWebhookRoutes(makeWebhookService({ store, cipher, clock, checkUrl })), { authenticate });
