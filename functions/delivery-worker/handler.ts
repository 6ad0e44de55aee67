import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { cipherFromConfig } from '../../shared/platform/crypto/from-config.ts';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { makeDeliveryMetrics } from '../../shared/webhooks/deliveries/metrics.ts';
import { guardedHttpFromConfig } from '../../shared/webhooks/deliveries/guarded-http.ts';
import { schedulingQueueFromConfig } from '../../shared/webhooks/deliveries/scheduling-queue.ts';
import { SIGNING_SECRET_DATA_KEYS } from '../../shared/webhooks/endpoints/signature.ts';
import { makeWorkerBatch } from '../../shared/webhooks/deliveries/worker-batch.ts';
import type { RecoveryMessage, StatsRollupMessage } from '../../shared/webhooks/deliveries/delivery-message.ts';
import { makeDeliveryWorkerStore } from '../../shared/webhooks/deliveries/delivery-store.ts';
import { recordLateStats } from '../../shared/webhooks/stats/delivery-stats-store.ts';
import { makeEndpointFanoutStore, makeEndpointWorkerStore } from '../../shared/webhooks/endpoints/endpoint-pipeline-store.ts';

const { config, db, clock } = runtime();
// The fan-out's Query of a workspace's endpoints: a batch with many of them reads them all at once (worker-reads.ts).
const store = { ...makeEndpointWorkerStore(db), ...makeEndpointFanoutStore(db), ...makeDeliveryWorkerStore(db) };
// Every invocation signs deliveries, so the KMS client is built at cold start, not on the first value.
const cipher = cipherFromConfig(config, SIGNING_SECRET_DATA_KEYS);
const { send } = guardedHttpFromConfig(config);
const queue = schedulingQueueFromConfig(config, clock);
const metrics = makeDeliveryMetrics();
// A recovery of failed deliveries is rare work: its runner loads with its first message, not at cold start.
const recover = async (message: RecoveryMessage) => {
  const { makeRecoveryRunner, makeRecoveryWorkerStore } = await import('../../shared/webhooks/recovery/recovery-runner.ts');
  runner ??= makeRecoveryRunner({
    store: { ...store, ...makeRecoveryWorkerStore(db) },
    uncountFailed: (ws, endpointId, createdAt, count) => recordLateStats(db, ws, endpointId, createdAt, { failed: -count }),
    enqueueAll: (messages) => queue.enqueueAllNow(messages),
    continueRecovery: (next) => queue.enqueueRecovery(next),
    clock,
    metrics,
    log: logger,
  });
  return runner(message);
};
let runner: ((message: RecoveryMessage) => Promise<unknown>) | undefined;
// A statistics rollup runs once a workspace's bucket is over, a small share of invocations: its code loads with the first.
const rollUp = async (message: StatsRollupMessage) => {
  const { makeStatsRollup, makeStatsRollupStore } = await import('../../shared/webhooks/stats/stats-rollup.ts');
  rollup ??= makeStatsRollup({
    store: makeStatsRollupStore(db),
    continueRollup: (next) => queue.enqueueStatsRollup(next, clock.now()),
    clock,
    log: logger,
  });
  return rollup(message);
};
let rollup: ((message: StatsRollupMessage) => Promise<unknown>) | undefined;
const batch = makeWorkerBatch({
  store,
  cipher,
  clock,
  send,
  enqueue: (m, o) => queue.enqueue(m, o),
  timeScale: config.webhooks.timeScale,
  metrics,
  log: logger,
  recover,
  rollUp,
});

/** Lambda entry of the delivery worker (SQS event source, ReportBatchItemFailures): see `makeWorkerBatch`. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => batch(event.Records);
