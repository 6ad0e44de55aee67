import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../shared/platform/config.ts';
import { schedulingQueueSettings } from '../../../../shared/webhooks/deliveries/scheduling-settings.ts';

/** What the stack gives the delivery worker for its queue (lib/webhook-delivery.ts). */
const ENV = {
  TABLE_NAME: 'table',
  DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/deliveries',
  DELIVERY_QUEUE_ARN: 'arn:aws:sqs:us-east-1:111111111111:deliveries',
  SCHEDULER_GROUP: 'deliveries',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::111111111111:role/scheduler',
};

describe("the delivery worker's queue settings", () => {
  it('reads the queue and the schedules it makes from the configuration', () => {
    expect(schedulingQueueSettings(loadConfig(ENV))).toEqual({
      sqsEndpoint: undefined,
      schedulerEndpoint: undefined,
      queueUrl: ENV.DELIVERY_QUEUE_URL,
      groupName: 'deliveries',
      queueArn: ENV.DELIVERY_QUEUE_ARN,
      roleArn: ENV.SCHEDULER_ROLE_ARN,
    });
  });

  // The queue is built on the first message (functions/delivery-worker/queue.ts); a missing setting must still stop
  // the cold start, not the first retry.
  it.each(['DELIVERY_QUEUE_URL', 'DELIVERY_QUEUE_ARN', 'SCHEDULER_GROUP', 'SCHEDULER_ROLE_ARN'])(
    'refuses a configuration without %s',
    (name) => {
      const config = loadConfig({ ...ENV, [name]: undefined });
      expect(() => schedulingQueueSettings(config)).toThrow(`Invalid configuration: ${name} is required for webhook delivery`);
    },
  );
});
