import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { makeReferenceIndexStore } from '../../shared/references/reference-index.ts';
import {
  immediateQueueFromConfig,
  makeDeliveryFanoutStore,
  makeEndpointFanoutStore,
  makeFanout,
  makeFanoutMetrics,
  makeStatsRollupTrigger,
} from '../../shared/webhooks/pipeline.ts';

const { config, db, clock } = runtime();
const queue = immediateQueueFromConfig(config, clock);
// Every bucket the fan-out makes deliveries in is rolled up into the endpoints' statistics once it is over.
const rollups = makeStatsRollupTrigger({ enqueue: (message, at) => queue.enqueueStatsRollup(message, at), log: logger });
const store = rollups.watch(composeStores(makeEndpointFanoutStore(db), makeDeliveryFanoutStore(db)));
const fanout = makeFanout({
  store,
  enqueueAll: (messages) => queue.enqueueAllNow(messages),
  log: logger,
  clock,
  metrics: makeFanoutMetrics(),
  references: makeReferenceIndexStore(db),
});

/** Lambda entry of the stream fan-out (DynamoDB stream, ReportBatchItemFailures): deliveries, and changed audit entries reported. */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  fanout(event.Records).finally(() => rollups.flush());
