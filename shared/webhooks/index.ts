/**
 * The webhooks feature's public entry: what another feature would use, and what the API's two route groups
 * (functions/webhooks, functions/webhook-deliveries) load at cold start: the endpoint and delivery-log services, the
 * store factories their compositions put together (the store types are the services' ports), the answers and the
 * event types. Two things are not here, for the bundles' sake: esbuild places a file's code by which entries reach
 * the file, not which use it, so code a later chunk needs from a file a cold start reaches is read at every cold start
 * (and every `import()` in a reached file makes chunks of its own):
 * - what the pipeline's functions load at cold start (the fan-out, the worker, the sweeper, the queues, the sender):
 *   ./pipeline.ts, whose bundles then reach neither the access policy nor its lazy imports;
 * - what a function loads only on first use (the SSRF guard, the delivery queue of webhook-deliveries, test events,
 *   recoveries, statistics and the rollup): the function's own module that its handler imports dynamically
 *   (functions/<group>/*.ts beside the handler) imports it from its file, as no module a cold start imports may.
 * ./package.json declares these modules free of side effects at load, so a bundle keeps none it does not use.
 */
export { makeWebhookService, type WebhookService, type WebhookServiceDeps } from './endpoints/webhook-service.ts';
export { makeEndpointApiStore, makeEndpointReader, type EndpointApiStore, type EndpointReader } from './endpoints/endpoint-store.ts';
export { SIGNING_SECRET_DATA_KEYS } from './endpoints/signature.ts';
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
export { EVENT_TYPE_NAMES, EVENT_TYPES } from './deliveries/event-types.ts';
export type { DeliveryStatsService } from './stats/delivery-stats-service.ts';
export type { StatsRollupMessage } from './stats/stats-message.ts';
export type { WebhookOperations } from './recovery/webhook-operations-service.ts';
