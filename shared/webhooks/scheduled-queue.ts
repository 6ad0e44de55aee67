import { makeSchedulerClient } from '../clients/scheduler.ts';
import { makeSqsClient } from '../clients/sqs.ts';
import type { Config } from '../config.ts';
import type { Runtime } from '../runtime.ts';
import { makeDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts';
import { required } from './runtime.ts';
import { makeEventBridgeScheduler } from './scheduler.ts';

/** The worker's delivery queue: SQS for short waits, EventBridge Scheduler one-time schedules for long ones. */
export function deliveryQueueFromConfig(config: Config, clock: Runtime['clock']): DeliveryQueue {
  const w = config.webhooks;
  return makeDeliveryQueue({
    sqs: makeSqsClient({ endpoint: w.sqsEndpoint }),
    queueUrl: required(w.queueUrl, 'DELIVERY_QUEUE_URL'),
    scheduler: makeEventBridgeScheduler({
      client: makeSchedulerClient({ endpoint: w.schedulerEndpoint }),
      groupName: required(w.schedulerGroup, 'SCHEDULER_GROUP'),
      queueArn: required(w.queueArn, 'DELIVERY_QUEUE_ARN'),
      roleArn: required(w.schedulerRoleArn, 'SCHEDULER_ROLE_ARN'),
    }),
    clock,
  });
}
