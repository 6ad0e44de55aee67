/*
 * What the rare routes of webhook-deliveries use (test events, recoveries, statistics), in one module that the
 * handler imports on the first of them: one chunk split point, so the code they share with a cold start does not
 * spread over more chunks a cold start must read.
 */
export { makeWebhookOperations } from '../../shared/webhooks/recovery/webhook-operations-service.ts';
export { makeRecoveryApiStore } from '../../shared/webhooks/recovery/recovery-store.ts';
export { makeDeliveryStatsService, makeDeliveryStatsReader } from '../../shared/webhooks/stats/delivery-stats-service.ts';
