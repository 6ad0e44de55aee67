import { requiredSetting, type Config } from '../../platform/config.ts';

/** Where the worker's queue sends, and the schedules it makes for long waits. */
export interface SchedulingQueueSettings {
  /** The local stack's SQS and Scheduler stand-ins; unset in AWS. */
  sqsEndpoint: string | undefined;
  schedulerEndpoint: string | undefined;
  queueUrl: string;
  /** The schedule group, the queue each schedule sends to, and the role Scheduler assumes to send. */
  groupName: string;
  queueArn: string;
  roleArn: string;
}

/**
 * The worker queue's settings, read and checked at cold start: a function missing one fails loudly there, not on its
 * first retry, although the queue itself is built on first use (scheduling-queue.ts).
 */
export function schedulingQueueSettings(config: Config): SchedulingQueueSettings {
  const w = config.webhooks;
  return {
    sqsEndpoint: w.sqsEndpoint,
    schedulerEndpoint: w.schedulerEndpoint,
    queueUrl: requiredSetting(w.queueUrl, 'DELIVERY_QUEUE_URL'),
    groupName: requiredSetting(w.schedulerGroup, 'SCHEDULER_GROUP'),
    queueArn: requiredSetting(w.queueArn, 'DELIVERY_QUEUE_ARN'),
    roleArn: requiredSetting(w.schedulerRoleArn, 'SCHEDULER_ROLE_ARN'),
  };
}
