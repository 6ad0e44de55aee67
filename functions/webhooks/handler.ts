import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeWebhookService } from '../../shared/services/webhooks.ts';
import { guardedHttpFromConfig } from '../../shared/webhooks/guarded-http.ts';
import { signingCipherFromConfig } from '../../shared/webhooks/signing-cipher.ts';
import { makeWebhookRoutes } from './routes.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';
import { makeWebhookStore } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeWebhookStore(db, pager), ...makeDeliveryStore(db, pager) };
const cipher = signingCipherFromConfig(config);
const { checkUrl } = guardedHttpFromConfig(config);

/** Lambda entry of the webhooks route group. */
export const handler = makeRouteGroupHandler(makeWebhookRoutes(makeWebhookService({ store, cipher, clock, checkUrl })), {
  authenticate,
  // A replayed registration carries the signing secret: its recorded answer is sealed like the secret itself.
  idempotency: { ...idempotency, cipher },
});
