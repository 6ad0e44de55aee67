/**
 * The webhooks feature's public entry: what other parts use of it (the event types the API description lists, the
 * one-time scheduler's contract the local stack's stand-in keeps), and what the API's two route groups
 * (functions/webhooks, functions/webhook-deliveries) load at cold start: the endpoint and delivery-log services, the
 * store factories their compositions put together (the store types are the services' ports), the answers.
 *
 * Three entry modules besides this file, for the bundles' sake: esbuild places a file's code by which entries reach
 * the file, not which use it, so code that a later chunk needs from a file a cold start reaches is read at every
 * cold start, and an `import()` in any file a bundle reaches makes chunks of its own. ./package.json declares these
 * modules free of side effects at load, so a bundle keeps nothing of them it does not use. (architecture.test.ts
 * reads these lines, as a package's `exports` map.)
 * @entry pipeline.ts what the pipeline's three functions load at cold start, reaching neither the access policy nor its lazy imports
 * @entry operations.ts test events, recoveries and statistics, which webhook-deliveries loads on the first of them
 * @entry on-first-use.ts the rest a function loads on first use: the SSRF guard, the API's queue, the recovery runner, the rollup
 */
export { makeWebhookService, type WebhookService, type WebhookServiceDeps } from './endpoints/webhook-service.ts';
export { makeEndpointApiStore, makeEndpointReader, type EndpointApiStore, type EndpointReader } from './endpoints/endpoint-store.ts';
export { newSigningSecret, secretHint, signatureHeader, SIGNING_SECRET_DATA_KEYS } from './endpoints/signature.ts';
export { redactUrl } from './endpoints/redact-url.ts';
export {
  deliveryAnswer,
  eventTypeAnswer,
  webhookEndpointAnswer,
  webhookEndpointCreated,
  webhookStatsAnswer,
} from './endpoints/webhook-answers.ts';
export { makeDeliveryService, type DeliveryService } from './deliveries/delivery-service.ts';
export { makeDeliveryApiStore, type DeliveryApiStore } from './deliveries/delivery-store.ts';
export type { RecoveryMessage } from './deliveries/delivery-message.ts';
export { EVENT_TYPE_NAMES, EVENT_TYPES, PING_EVENT_TYPE } from './deliveries/event-types.ts';
export { assertScheduleName, type OneTimeScheduler, type ScheduleInput } from './deliveries/one-time-scheduler.ts';
export type { DeliveryStatsService } from './stats/delivery-stats-service.ts';
export type { StatsRollupMessage } from './stats/stats-message.ts';
export type { WebhookOperations } from './recovery/webhook-operations-service.ts';
