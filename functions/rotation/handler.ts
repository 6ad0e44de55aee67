import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import {
  makeLambdaInvoker,
  makeRotationMetrics,
  makeRotationRunner,
  MESSAGE_STEPS,
  rotationStepsOf,
  type FunctionInvoker,
} from '../../shared/rotation/index.ts';
// Only the runner keeps the schedules, so only its bundle has the EventBridge adapter's chunk (shared/rotation/index.ts).
import { rotationSchedulesOf } from '../../shared/rotation/rotation-schedules.ts';
import { secretServiceOf, secretsStore } from '../../shared/secrets/secret-wiring.ts';

/**
 * The rotation runner's function (decisions.md v1.3, "Rotation"): consumes the rotation queue, one step of one
 * rotation per message (shared/rotation/rotation-runner.ts). A message it cannot run is reported failed, so SQS
 * offers it again and, after its receives, moves it to the dead-letter queue; the lease's end then frees the secret.
 */

const { config, db, pager, clock } = runtime();
const store = secretsStore(db, pager);
const cipher = cipherOnFirstUse(config, 100);
const secrets = secretServiceOf({ config, store, cipher, clock });
const rotations = rotationStepsOf({ config, store, secrets, clock, schedules: rotationSchedulesOf(config) });
const metrics = makeRotationMetrics();

const message = z.object({
  workspaceId: z.string().check(z.minLength(1), z.maxLength(64)),
  secretId: z.string().check(z.minLength(1), z.maxLength(64)),
  // A schedule's start has no token yet (the rotation it begins makes one), nor has a request to sync a schedule.
  token: z.optional(z.string().check(z.maxLength(64))),
  // The steps the service queues (shared/rotation/rotation-records.ts): another is a message it never sent.
  step: z.enum(MESSAGE_STEPS),
});

/** The handler over an invoker: Lambda's on AWS (below), the local stack's child processes (bin/local/rotation.ts). */
export function rotationHandler(invoker: FunctionInvoker, stepTimeoutMs?: number) {
  const runner = makeRotationRunner({ rotations, invoker, onFailure: (step) => metrics.failed(step), stepTimeoutMs });
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      try {
        const parsed = message.safeParse(JSON.parse(record.body));
        if (!parsed.success) {
          logger.error('rotation message not understood', { messageId: record.messageId });
          continue;
        }
        const { token = '', ...rest } = parsed.data;
        if (rest.step !== 'start' && rest.step !== 'schedule' && token.length < 32) {
          logger.error('rotation message not understood', { messageId: record.messageId });
          continue;
        }
        await runner.run({ ...rest, token });
      } catch (error) {
        logger.error('rotation step failed to run', { messageId: record.messageId, errorName: (error as Error | null)?.name });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

/** Lambda entry: rotation functions are invoked through Lambda, only those the secrets service allows (ROTATION_FUNCTION_ARNS). */
export const handler = rotationHandler(makeLambdaInvoker());
