/**
 * What the webhook pipeline's functions (functions/webhook-fanout, functions/delivery-worker,
 * functions/delivery-sweeper) load at cold start: the fan-out with its statistics trigger, the worker's batch with
 * its metrics and guarded sender, the sweeper, the delivery queues, and the store factories their compositions put
 * together. The pipeline's public entry beside ./index.ts (which says why they are two).
 */
export {
  makeEndpointFanoutStore,
  makeEndpointWorkerStore,
  type EndpointFanoutStore,
  type EndpointWorkerStore,
} from './endpoints/endpoint-pipeline-store.ts';
export { SIGNING_SECRET_DATA_KEYS } from './endpoints/signature.ts';
export {
  makeDeliveryWorkerStore,
  type DeliveryWorkerStore,
} from './deliveries/delivery-store.ts';
export {
  makeDeliveryFanoutStore,
  makeDeliverySweeperStore,
  type DeliveryFanoutStore,
  type DeliverySweeperStore,
} from './deliveries/delivery-pipeline-store.ts';
export type { RecoveryMessage } from './deliveries/delivery-message.ts';
export { makeFanout, makeFanoutMetrics } from './deliveries/fanout.ts';
/** The walk of the secrets that depend on a changed one, which the syncs' trigger routes changes by too. */
export { dependentsOfChange } from './deliveries/dependent-events.ts';
export { makeWorkerBatch } from './deliveries/worker-batch.ts';
export { makeDeliveryMetrics } from './deliveries/metrics.ts';
export { guardedHttpFromConfig } from './deliveries/guarded-http.ts';
export { immediateQueueFromConfig, sqsTargetFromConfig } from './deliveries/immediate-queue.ts';
export { makeDeliveryQueue } from './deliveries/delivery-queue.ts';
export { schedulingQueueSettings } from './deliveries/scheduling-settings.ts';
export { makeSweeper } from './deliveries/sweeper.ts';
export { makeRecoverySweeperStore, type RecoverySweeperStore } from './recovery/recovery-store.ts';
export type { StatsRollupMessage } from './stats/stats-message.ts';
export { makeStatsRollupTrigger } from './stats/stats-trigger.ts';
