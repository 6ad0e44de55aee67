import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { cipherFromConfig } from '../../shared/platform/crypto/from-config.ts';
import { logger } from '../../shared/platform/logger.ts';
import { onFirstUse } from '../../shared/platform/on-first-use.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import {
  guardedHttpFromConfig,
  makeDeliveryMetrics,
  makeDeliveryWorkerStore,
  makeEndpointFanoutStore,
  makeEndpointWorkerStore,
  makeWorkerBatch,
  schedulingQueueSettings,
  SIGNING_SECRET_DATA_KEYS,
  type RecoveryMessage,
  type StatsRollupMessage,
} from '../../shared/webhooks/pipeline.ts';

const { config, db, clock } = runtime();
// The stores of the cold start; the fan-out's Query of a workspace's endpoints lets a batch with many of them read
// them all at once (shared/webhooks/deliveries/worker-reads.ts). ./rare.ts adds the recovery's.
const store = composeStores(makeEndpointWorkerStore(db), makeEndpointFanoutStore(db), makeDeliveryWorkerStore(db));
// Every invocation signs deliveries, so the KMS client is built at cold start, not on the first value.
const cipher = cipherFromConfig(config, SIGNING_SECRET_DATA_KEYS);
const { send } = guardedHttpFromConfig(config);
// Queueing is a small share of invocations (a retry, a recovery's or a rollup's next step): the SQS and Scheduler
// clients load with the first message queued (./queue.ts), not at cold start; their settings are checked here.
const queueSettings = schedulingQueueSettings(config);
const queue = onFirstUse(['enqueue', 'enqueueAllNow', 'enqueueRecovery', 'enqueueStatsRollup'], async () =>
  (await import('./queue.ts')).makeSchedulingQueue(queueSettings, clock),
);
const metrics = makeDeliveryMetrics();
// A recovery of failed deliveries is rare work: its runner loads with its first message (./rare.ts), not at cold
// start.
const recover = async (message: RecoveryMessage) => {
  if (!runner) {
    const { makeRecoveryRunner, withRecoveryStore } = await import('./rare.ts');
    const all = withRecoveryStore(db, store);
    runner ??= makeRecoveryRunner({
      store: all,
      uncountFailed: all.uncountFailed,
      enqueueAll: (messages) => queue.enqueueAllNow(messages),
      continueRecovery: (next) => queue.enqueueRecovery(next),
      clock,
      metrics,
      log: logger,
    });
  }
  return runner(message);
};
let runner: ((message: RecoveryMessage) => Promise<unknown>) | undefined;
// A statistics rollup runs once a workspace's bucket is over, a small share of invocations: its code loads with the
// first (./rare.ts, with the recovery's). It reads and writes through its own store alone.
const rollUp = async (message: StatsRollupMessage) => {
  const { makeStatsRollup, makeStatsRollupStore } = await import('./rare.ts');
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
