import { makeSchedulerClient } from '../../platform/clients/scheduler.ts';
import { requiredSetting, type Config } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { makeDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts';
import { sqsTargetFromConfig } from './immediate-queue.ts';
import { makeEventBridgeScheduler } from './scheduler.ts';

/** The worker's delivery queue: SQS for short waits, EventBridge Scheduler one-time schedules for long ones. */
export function schedulingQueueFromConfig(config: Config, clock: Runtime['clock']): DeliveryQueue {
  const w = config.webhooks;
  return makeDeliveryQueue({
    ...sqsTargetFromConfig(config),
    scheduler: makeEventBridgeScheduler({
      client: makeSchedulerClient({ endpoint: w.schedulerEndpoint }),
      groupName: requiredSetting(w.schedulerGroup, 'SCHEDULER_GROUP'),
      queueArn: requiredSetting(w.queueArn, 'DELIVERY_QUEUE_ARN'),
      roleArn: requiredSetting(w.schedulerRoleArn, 'SCHEDULER_ROLE_ARN'),
    }),
    clock,
  });
}
