import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { makeSqsClient } from '../../platform/clients/sqs.ts';
import type { RotationMessage } from '../rotation-records.ts';

/** The SQS side of the rotation queue (rotation-queue.ts loads it on the first rotation a container starts). */
export function sqsRotationSender(queueUrl: string, endpoint: string | undefined) {
  const sqs = makeSqsClient({ endpoint });
  return {
    send: (message: RotationMessage) => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) })),
  };
}
