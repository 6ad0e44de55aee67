import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeDeliveryMetrics } from '../../shared/webhooks/metrics.ts';
import { guardedHttpFromConfig } from '../../shared/webhooks/guarded-http.ts';
import { schedulingQueueFromConfig } from '../../shared/webhooks/scheduling-queue.ts';
import { signingCipherFromConfig } from '../../shared/webhooks/signing-cipher.ts';
import { makeWorkerBatch } from '../../shared/webhooks/worker-batch.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';
import { makeWebhookStore } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock } = runtime();
const store = { ...makeWebhookStore(db, pager), ...makeDeliveryStore(db, pager) };
const cipher = signingCipherFromConfig(config);
const { send } = guardedHttpFromConfig(config);
const queue = schedulingQueueFromConfig(config, clock);
const metrics = makeDeliveryMetrics();
const batch = makeWorkerBatch({ store, cipher, clock, send, enqueue: (m, o) => queue.enqueue(m, o), timeScale: config.webhooks.timeScale, metrics, log: logger });

/** Lambda entry of the delivery worker (SQS event source, ReportBatchItemFailures): see `makeWorkerBatch`. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => batch(event.Records);
