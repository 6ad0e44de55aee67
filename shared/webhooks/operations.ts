/**
 * Webhook operations (decisions.md): test events, recoveries of failed deliveries and delivery statistics, their
 * services and the stores they add, as webhook-deliveries loads them on the first of them (functions/
 * webhook-deliveries/rare.ts, imported dynamically). An entry of its own (see ./index.ts): its services carry the
 * access policy, which the worker's lazy parts (./on-first-use.ts) must not reach.
 */
export { makeWebhookOperations } from './recovery/webhook-operations-service.ts';
export { makeRecoveryApiStore, type RecoveryApiStore } from './recovery/recovery-store.ts';
export { makeDeliveryStatsService } from './stats/delivery-stats-service.ts';
export { makeDeliveryStatsReader, type DeliveryStatsReader } from './stats/delivery-stats-read-store.ts';
