import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { insertedAudits } from '../../shared/audit/index.ts';
import { streamDispatchOf } from '../../shared/audit-streams/index.ts';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { makeReferenceIndexStore } from '../../shared/references/reference-index.ts';
import { syncTriggerOf } from '../../shared/syncs/pipeline-wiring.ts';
import {
  dependentsOfChange,
  makeDeliveryFanoutStore,
  makeDeliveryQueue,
  makeEndpointFanoutStore,
  makeFanout,
  makeFanoutMetrics,
  makeStatsRollupTrigger,
  sqsTargetFromConfig,
} from '../../shared/webhooks/pipeline.ts';

const { config, db, clock } = runtime();
const target = sqsTargetFromConfig(config);
const queue = makeDeliveryQueue({ ...target, clock });
// Every bucket the fan-out makes deliveries in is rolled up into the endpoints' statistics once it is over.
const rollups = makeStatsRollupTrigger({ enqueue: (message, at) => queue.enqueueStatsRollup(message, at), log: logger });
const store = rollups.watch(composeStores(makeEndpointFanoutStore(db), makeDeliveryFanoutStore(db)));
const references = makeReferenceIndexStore(db);
const fanout = makeFanout({
  store,
  enqueueAll: (messages) => queue.enqueueAllNow(messages),
  log: logger,
  clock,
  metrics: makeFanoutMetrics(),
  references,
});
// The syncs' side of the stream (decisions.md v1.4, "Syncs"): value changes queue pushes, through the same SQS client.
const syncs = syncTriggerOf({
  db,
  sqs: target.sqs,
  dependentsOf: (audit) => dependentsOfChange(references, audit),
  warn: (message) => logger.warn(message),
});
// Audit streams' side (decisions.md v1.4, "Audit streams and tamper evidence"): every inserted audit entry is queued
// for each active stream of its workspace.
const streams = streamDispatchOf({ db, sqs: target.sqs, clock, warn: (message, context) => logger.warn(message, context) });

/**
 * Lambda entry of the stream fan-out (DynamoDB stream, ReportBatchItemFailures): deliveries, sync pushes, audit
 * stream messages, and changed audit entries reported. The batch is retried from the first record any side could not
 * finish (each is idempotent or at least once: deliveries are conditional puts, a push sends what is current, a
 * stream's receiver drops a repeated entry by its id).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const records = event.Records;
  const audits = records.map((record) => insertedAudits(record));
  const [webhooks, syncFailedAt, streamFailedAt] = await Promise.all([
    fanout(records).finally(() => rollups.flush()),
    syncs(audits),
    streams(audits),
  ]);
  const webhookFailedAt = webhooks.batchItemFailures.length
    ? records.findIndex((record) => record.dynamodb?.SequenceNumber === webhooks.batchItemFailures[0]!.itemIdentifier)
    : Infinity;
  const retryFrom = Math.min(webhookFailedAt === -1 ? 0 : webhookFailedAt, syncFailedAt, streamFailedAt);
  return { batchItemFailures: retryFrom < records.length ? [{ itemIdentifier: records[retryFrom]!.dynamodb?.SequenceNumber ?? '' }] : [] };
};
