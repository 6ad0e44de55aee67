import { makeSchedulerClient } from '../../platform/clients/scheduler.ts';
import { makeSqsClient } from '../../platform/clients/sqs.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { makeDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts';
import { makeEventBridgeScheduler } from './scheduler.ts';
import type { SchedulingQueueSettings } from './scheduling-settings.ts';

/**
 * The worker's delivery queue: SQS for short waits, EventBridge Scheduler one-time schedules for long ones. The
 * worker builds it on the first message it queues (a retry, a recovery's or a rollup's next step), from settings it
 * checked at cold start, so a cold start builds neither client.
 */
export function makeSchedulingQueue(settings: SchedulingQueueSettings, clock: Runtime['clock']): DeliveryQueue {
  return makeDeliveryQueue({
    sqs: makeSqsClient({ endpoint: settings.sqsEndpoint }),
    queueUrl: settings.queueUrl,
    scheduler: makeEventBridgeScheduler({
      client: makeSchedulerClient({ endpoint: settings.schedulerEndpoint }),
      groupName: settings.groupName,
      queueArn: settings.queueArn,
      roleArn: settings.roleArn,
    }),
    clock,
  });
}
