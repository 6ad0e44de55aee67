import type { Config } from '../platform/config.ts';
import type { RotationMessage, RotationQueue } from './rotation-records.ts';

/**
 * The rotation queue as SQS (fauxqs locally): one message per step of a rotation, which the runner's function takes
 * (functions/rotation/handler.ts). The SQS client and its commands load on the first rotation a container starts (a
 * chunk of its own), so the functions' cold starts never read them. Undefined when the queue is not configured.
 */
export function rotationQueueOf(config: Pick<Config, 'rotation' | 'webhooks'>): RotationQueue | undefined {
  const queueUrl = config.rotation?.queueUrl;
  if (!queueUrl) return undefined;
  let client: Promise<{ send(message: RotationMessage): Promise<unknown> }> | undefined;
  const load = async () => (await import('./sqs/sqs-rotation-queue.ts')).sqsRotationSender(queueUrl, config.webhooks.sqsEndpoint);
  return {
    async send(message: RotationMessage) {
      client ??= load().catch((error: unknown) => {
        client = undefined;
        throw error;
      });
      await (await client).send(message);
    },
  };
}
