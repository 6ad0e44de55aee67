import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';
import { parseDeliveryMessage } from '../../shared/webhooks/delivery-queue.ts';
import { makeDeliveryMetrics } from '../../shared/webhooks/metrics.ts';
import { guardedHttpFromConfig } from '../../shared/webhooks/guarded-http.ts';
import { schedulingQueueFromConfig } from '../../shared/webhooks/scheduling-queue.ts';
import { signingCipherFromConfig } from '../../shared/webhooks/signing-cipher.ts';
import { makeWorker } from '../../shared/webhooks/worker.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';
import { makeWebhookStore } from '../../shared/store/webhooks.ts';

const { config, db, pager, clock } = runtime();
const store = { ...makeWebhookStore(db, pager), ...makeDeliveryStore(db, pager) };
const cipher = signingCipherFromConfig(config);
const { send } = guardedHttpFromConfig(config);
const queue = schedulingQueueFromConfig(config, clock);
const metrics = makeDeliveryMetrics();
const work = makeWorker({ store, cipher, clock, send, enqueue: (m, o) => queue.enqueue(m, o), timeScale: config.webhooks.timeScale, metrics, log: logger });

/**
 * Lambda entry of the delivery worker (SQS, ReportBatchItemFailures): one attempt per message, in parallel. A
 * message that cannot be read, or whose processing failed, is reported so SQS retries it and, in the end, moves it
 * to the dead-letter queue.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.allSettled(
    event.Records.map(async (record) => {
      const message = parseDeliveryMessage(record.body);
      if (!message) throw new Error('unreadable delivery message');
      return work(message);
    }),
  );
  metrics.flush();
  const batchItemFailures = results.flatMap((result, i) => {
    if (result.status === 'fulfilled') return [];
    logger.error('delivery attempt failed', { messageId: event.Records[i]!.messageId, errorName: (result.reason as Error)?.name });
    return [{ itemIdentifier: event.Records[i]!.messageId }];
  });
  return { batchItemFailures };
};
