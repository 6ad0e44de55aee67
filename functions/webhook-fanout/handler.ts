import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeFanout, makeFanoutMetrics } from '../../shared/webhooks/fanout.ts';
import { immediateQueueFromConfig } from '../../shared/webhooks/immediate-queue.ts';
import { makeDeliveryFanoutStore } from '../../shared/store/deliveries.ts';
import { makeEndpointFanoutStore } from '../../shared/store/webhooks.ts';

const { config, db, clock } = runtime();
const store = { ...makeEndpointFanoutStore(db), ...makeDeliveryFanoutStore(db) };
const queue = immediateQueueFromConfig(config, clock);
const fanout = makeFanout({ store, enqueueAll: (messages) => queue.enqueueAllNow(messages), log: logger, clock, metrics: makeFanoutMetrics() });

/** Lambda entry of the stream fan-out (DynamoDB stream, ReportBatchItemFailures): deliveries, and changed audit entries reported. */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => fanout(event.Records);
