/**
 * What the webhook functions load on first use, besides webhook-deliveries' operations (./operations.ts): the SSRF
 * guard and the sender it shares a module with (the webhooks group, on the first url check), the delivery queue of
 * the API (webhook-deliveries, on the first message it sends), the worker's (on the first message it queues), and a
 * recovery's runner and the statistics rollup with their stores (the worker, on the first message of either: one
 * chunk, since both reach this module). Each
 * function imports it from a module of its own that its handler imports dynamically; nothing a cold start imports
 * may import it (see ./index.ts).
 */
export { guardedHttpFromConfig } from './deliveries/guarded-http.ts';
export { enqueueNow, immediateQueueFromConfig } from './deliveries/immediate-queue.ts';
export { makeSchedulingQueue } from './deliveries/scheduling-queue.ts';
export { makeRecoveryRunner } from './recovery/recovery-runner.ts';
export { makeRecoveryWorkerStore } from './recovery/recovery-worker-store.ts';
export { makeStatsRollup } from './stats/stats-rollup.ts';
export { makeStatsRollupStore } from './stats/stats-rollup-store.ts';
