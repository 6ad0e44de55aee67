import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AUDIT_STREAM_QUEUE, AUDIT_STREAM_WORKER_FUNCTION, SYNC_QUEUE, SYNC_WORKER_FUNCTION } from '../../shared/platform/functions.ts';
import type { BatchHandler } from './sqs-poller.ts';
import { startSqsPoller } from './sqs-poller.ts';

/** A worker function over a queue of its own with a dead-letter queue, as the CDK stack makes them. */
export interface LocalQueueWorker {
  /** The function's name in logs and the instrumentation. */
  functionName: string;
  /** The environment variable the producers read the queue's URL from. */
  urlVariable: string;
  queue: string;
  deadLetterQueue: string;
  settings: { visibilityTimeoutSeconds: number; maxReceiveCount: number };
  fn: { entry: string; batchSize: number; maxConcurrency: number; timeoutSeconds: number };
}

/**
 * The workers with queues of their own: the sync worker (decisions.md v1.4, "Syncs") and the audit stream worker
 * ("Audit streams and tamper evidence"). Each retries through its own queue (hops of at most 15 minutes), not the
 * scheduler, so a queue and a poller are all each needs.
 */
export const LOCAL_QUEUE_WORKERS: readonly LocalQueueWorker[] = [
  {
    functionName: 'sync-worker',
    urlVariable: 'SYNC_QUEUE_URL',
    queue: 'syncs',
    deadLetterQueue: 'syncs-dlq',
    settings: SYNC_QUEUE,
    fn: SYNC_WORKER_FUNCTION,
  },
  {
    functionName: 'audit-stream-worker',
    urlVariable: 'AUDIT_STREAM_QUEUE_URL',
    queue: 'audit-streams',
    deadLetterQueue: 'audit-streams-dlq',
    settings: AUDIT_STREAM_QUEUE,
    fn: AUDIT_STREAM_WORKER_FUNCTION,
  },
];

/** A worker's queue as made on the local SQS. */
export interface MadeQueue {
  queueUrl: string;
  queueArn: string;
}

/** A worker's queue and its dead-letter queue on the local SQS, with the deployed settings. */
export async function ensureWorkerQueue(sqs: SQSClient, worker: LocalQueueWorker): Promise<MadeQueue> {
  const arnOf = async (url: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const dlq = await sqs.send(
    new CreateQueueCommand({ QueueName: worker.deadLetterQueue, Attributes: { MessageRetentionPeriod: '1209600' } }),
  );
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: worker.queue,
      Attributes: {
        VisibilityTimeout: String(worker.settings.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: await arnOf(dlq.QueueUrl!),
          maxReceiveCount: String(worker.settings.maxReceiveCount),
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, queueArn: await arnOf(queue.QueueUrl!) };
}

/** Every worker's queue (LOCAL_QUEUE_WORKERS), each with its worker. */
export function ensureWorkerQueues(sqs: SQSClient): Promise<{ worker: LocalQueueWorker; queue: MadeQueue }[]> {
  return Promise.all(LOCAL_QUEUE_WORKERS.map(async (worker) => ({ worker, queue: await ensureWorkerQueue(sqs, worker) })));
}

/**
 * A worker over its queue, with Lambda's SQS event-source semantics (bin/local/sqs-poller.ts); its handler module loads
 * once the environment is set, as Lambda's would.
 */
export async function startQueueWorker(
  input: { sqs: SQSClient; worker: LocalQueueWorker; queue: MadeQueue; projectRoot: string },
  stops: (() => Promise<void>)[],
) {
  const { worker, queue } = input;
  const module = (await import(pathToFileURL(join(input.projectRoot, worker.fn.entry)).href)) as { handler: BatchHandler<never, never> };
  const poller = startSqsPoller({
    sqs: input.sqs,
    ...queue,
    handler: module.handler as never,
    batchSize: worker.fn.batchSize,
    concurrency: worker.fn.maxConcurrency,
    timeoutMs: worker.fn.timeoutSeconds * 1000,
    functionName: worker.functionName,
  });
  stops.push(() => poller.stop());
}
