import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A worker's queue and its dead-letter queue as every worker of the stack has them (deliveries, rotation steps, sync
 * pushes, audit stream messages): SQS-managed encryption (messages carry ids and audit entries, never a value or a
 * credential), TLS only, four days of retention on the queue and fourteen on the dead-letter queue. Made under
 * `scope` as `DeadLetterQueue` and `Queue`, the ids each construct had before.
 */
export function queueWithDeadLetter(
  scope: Construct,
  settings: { readonly visibilityTimeoutSeconds: number; readonly maxReceiveCount: number },
): { queue: Queue; deadLetterQueue: Queue } {
  const deadLetterQueue = new Queue(scope, 'DeadLetterQueue', {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  const queue = new Queue(scope, 'Queue', {
    visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
    retentionPeriod: Duration.days(4),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}
