import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SYNC_QUEUE } from '../../shared/platform/functions.ts';

/** Names of the local sync queue and its dead-letter queue (as the CDK stack makes them). */
export const LOCAL_SYNC_QUEUE = 'syncs';
export const LOCAL_SYNC_DLQ = 'syncs-dlq';

/** The sync queue (decisions.md v1.4, "Syncs") and its dead-letter queue on the local SQS, with the deployed settings. */
export async function ensureSyncQueue(sqs: SQSClient): Promise<{ queueUrl: string; queueArn: string }> {
  const arnOf = async (url: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: LOCAL_SYNC_DLQ, Attributes: { MessageRetentionPeriod: '1209600' } }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: LOCAL_SYNC_QUEUE,
      Attributes: {
        VisibilityTimeout: String(SYNC_QUEUE.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: await arnOf(dlq.QueueUrl!),
          maxReceiveCount: String(SYNC_QUEUE.maxReceiveCount),
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, queueArn: await arnOf(queue.QueueUrl!) };
}
