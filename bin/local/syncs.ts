import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SYNC_QUEUE, SYNC_WORKER_FUNCTION } from '../../shared/platform/functions.ts';
import { startSqsPoller } from './sqs-poller.ts';

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

/**
 * The sync worker over the sync queue, with Lambda's SQS event-source semantics (bin/local/sqs-poller.ts); its
 * handler module loads once the environment is set, as Lambda's would. Destinations on this machine are reached
 * through `SYNC_AWS_ENDPOINT` (one local endpoint for Parameter Store, Secrets Manager and STS) and `apiUrl`.
 */
export async function startSyncWorker(
  input: { sqs: SQSClient; queueUrl: string; queueArn: string; projectRoot: string },
  stops: (() => Promise<void>)[],
) {
  const module = (await import(
    pathToFileURL(join(input.projectRoot, SYNC_WORKER_FUNCTION.entry)).href
  )) as typeof import('../../functions/sync-worker/handler.ts');
  const poller = startSqsPoller({
    sqs: input.sqs,
    queueUrl: input.queueUrl,
    queueArn: input.queueArn,
    handler: module.handler as never,
    batchSize: SYNC_WORKER_FUNCTION.batchSize,
    concurrency: SYNC_WORKER_FUNCTION.maxConcurrency,
    timeoutMs: SYNC_WORKER_FUNCTION.timeoutSeconds * 1000,
    functionName: 'sync-worker',
  });
  stops.push(() => poller.stop());
}
