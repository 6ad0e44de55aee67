import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import {
  makeDeliveryApiStore,
  makeEndpointApiStore,
  makeWebhookService,
  SIGNING_SECRET_DATA_KEYS,
  type WebhookServiceDeps,
} from '../../shared/webhooks/index.ts';
import { makeWebhookRoutes } from './routes.ts';
import { loadOnce } from '../../shared/platform/on-first-use.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
// The function's stores: endpoints, and of their deliveries what the log, pausing and deleting need.
const store = composeStores(makeEndpointApiStore(db, pager), makeDeliveryApiStore(db, pager));
// The envelope cipher of signing secrets. Only registering an endpoint or rotating its secret (and recording or
// replaying that answer under an Idempotency-Key) seals or opens one, so the KMS client loads on the first of them.
const cipher = cipherOnFirstUse(config, SIGNING_SECRET_DATA_KEYS);

// The SSRF guard (ssrf.ts with its hand-written range table in ip-ranges.ts, the resolver, and the sender it shares a
// module with, ./guard.ts) serves only the routes that register an endpoint or change its url, so it is loaded on the first of
// them, not at cold start. A configured allow-list (WEBHOOK_ALLOW_PRIVATE_CIDRS, never set by the CDK stack) is still
// parsed at cold start: a malformed one fails there, as it always has.
const loadGuard = loadOnce(async () => (await import('./guard.ts')).guardedHttpFromConfig(config));
if (config.webhooks.allowPrivateCidrs) await loadGuard();
const checkUrl: WebhookServiceDeps['checkUrl'] = async (url) => (await loadGuard()).checkUrl(url);

/** Lambda entry of the webhooks route group. */
export const handler = makeRouteGroupHandler(makeWebhookRoutes(makeWebhookService({ store, cipher, clock, checkUrl })), {
  authenticate,
  // A replayed registration carries the signing secret: its recorded answer is sealed like the secret itself.
  idempotency: { ...idempotency, cipher },
});
