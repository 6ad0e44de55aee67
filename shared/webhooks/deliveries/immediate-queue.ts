import type { SQSClient } from '@aws-sdk/client-sqs';
import { makeSqsClient } from '../../platform/clients/sqs.ts';
import { requiredSetting, type Config } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { makeDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts';
import type { DeliveryMessage } from './delivery-message.ts';

/** The delivery queue's SQS client and URL, as every queue of the webhook functions sends to it. */
export function sqsTargetFromConfig(config: Config): { sqs: SQSClient; queueUrl: string } {
  return {
    sqs: makeSqsClient({ endpoint: config.webhooks.sqsEndpoint }),
    queueUrl: requiredSetting(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL'),
  };
}

/**
 * A queue that only sends now or after a short SQS delay: what the fan-out, the sweeper and manual retries use, so
 * their bundles carry no Scheduler client (only the worker schedules long waits: scheduling-queue.ts).
 */
export function immediateQueueFromConfig(config: Config, clock: Runtime['clock']): DeliveryQueue {
  return makeDeliveryQueue({ ...sqsTargetFromConfig(config), clock });
}

/** Queues an attempt for right now (a manual retry). */
export function enqueueNow(queue: DeliveryQueue, clock: Runtime['clock']) {
  return (message: DeliveryMessage) => queue.enqueue(message, { at: clock.now(), viaScheduler: false });
}
