import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeWebhookService, type WebhookServiceDeps } from '../../shared/webhooks/endpoints/webhook-service.ts';
import { signingCipherOnFirstUse } from '../../shared/webhooks/endpoints/signing-cipher.ts';
import { makeWebhookRoutes } from './routes.ts';
import { makeDeliveryApiStore } from '../../shared/webhooks/deliveries/delivery-store.ts';
import { makeEndpointApiStore } from '../../shared/webhooks/endpoints/endpoint-store.ts';
import { loadOnce } from '../../shared/platform/on-first-use.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = { ...makeEndpointApiStore(db, pager), ...makeDeliveryApiStore(db, pager) };
const cipher = signingCipherOnFirstUse(config);

// The SSRF guard (ssrf.ts with its hand-written range table in ip-ranges.ts, the resolver, and the sender it shares a
// module with) serves only the routes that register an endpoint or change its url, so it is loaded on the first of
// them, not at cold start. A configured allow-list (WEBHOOK_ALLOW_PRIVATE_CIDRS, never set by the CDK stack) is still
// parsed at cold start: a malformed one fails there, as it always has.
const loadGuard = loadOnce(async () => (await import('../../shared/webhooks/deliveries/guarded-http.ts')).guardedHttpFromConfig(config));
if (config.webhooks.allowPrivateCidrs) await loadGuard();
const checkUrl: WebhookServiceDeps['checkUrl'] = async (url) => (await loadGuard()).checkUrl(url);

/** Lambda entry of the webhooks route group. */
export const handler = makeRouteGroupHandler(makeWebhookRoutes(makeWebhookService({ store, cipher, clock, checkUrl })), {
  authenticate,
  // A replayed registration carries the signing secret: its recorded answer is sealed like the secret itself.
  idempotency: { ...idempotency, cipher },
});
