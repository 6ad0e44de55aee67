import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROTATION_FUNCTION, ROTATION_QUEUE } from '../../shared/platform/functions.ts';
import type { FunctionInvoker } from '../../shared/rotation/index.ts';
import { startSqsPoller } from './sqs-poller.ts';

/**
 * Rotation on the local stack: the rotation queue and its dead-letter queue in the SQS emulator (made through the
 * SQS API, as the CDK stack makes them), and the runner's real handler behind a poller with Lambda's event-source
 * semantics, invoking rotation functions through the local stand-ins (`npm run admin -- function add`).
 */

export const LOCAL_ROTATION_QUEUE = 'secret-rotations';
export const LOCAL_ROTATION_DLQ = 'secret-rotations-dlq';

/** Makes the queues (kept as they are when they exist) and answers the queue's URL and ARN. */
export async function ensureRotationQueue(sqs: SQSClient) {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: LOCAL_ROTATION_DLQ, Attributes: { MessageRetentionPeriod: '1209600' } }));
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
    .QueueArn!;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: LOCAL_ROTATION_QUEUE,
      Attributes: {
        VisibilityTimeout: String(ROTATION_QUEUE.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: String(ROTATION_QUEUE.maxReceiveCount) }),
      },
    }),
  );
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
    .QueueArn!;
  return { queueUrl: queue.QueueUrl!, queueArn };
}

/** Starts the runner over the queue; its handler module loads once the environment is set, as Lambda's would. */
export async function startRotationRunner(
  input: { sqs: SQSClient; queueUrl: string; queueArn: string; projectRoot: string; invoker: FunctionInvoker },
  stops: (() => Promise<void>)[],
) {
  const module = (await import(
    pathToFileURL(join(input.projectRoot, ROTATION_FUNCTION.entry)).href
  )) as typeof import('../../functions/rotation/handler.ts');
  // Local stack and tests only: a shorter step timeout than AWS's 5 minutes (ROTATION_STEP_TIMEOUT_SECONDS).
  const seconds = Number(process.env.ROTATION_STEP_TIMEOUT_SECONDS ?? '');
  const handler = module.rotationHandler(input.invoker, Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : undefined);
  const poller = startSqsPoller({
    sqs: input.sqs,
    queueUrl: input.queueUrl,
    queueArn: input.queueArn,
    handler: handler as never,
    batchSize: ROTATION_FUNCTION.batchSize,
    concurrency: ROTATION_FUNCTION.maxConcurrency,
    timeoutMs: ROTATION_FUNCTION.timeoutSeconds * 1000,
    functionName: 'rotation',
  });
  stops.push(() => poller.stop());
}
