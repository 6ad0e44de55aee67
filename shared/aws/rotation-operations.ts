import * as z from 'zod/mini';
import { LAMBDA_ARN, type RotationService, type StoredRotation } from '../rotation/index.ts';
import { secretArn, secretPath, type AwsPlace } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { secretIdSchema } from './get-secret-value.ts';
import type { SecretLookup } from './secret-lookup.ts';

/**
 * RotateSecret and CancelRotateSecret (decisions.md v1.3, "Rotation") over the rotation service (shared/rotation/),
 * which ask the policy (`write`) and audit as REST does. `RotateSecret` configures what it is given (function, rules)
 * and, unless `RotateImmediately` is false, starts a rotation under its `ClientRequestToken` (the VersionId it
 * answers). Without `RotationLambdaARN` on a secret with no function, the service writes a random value itself.
 */

const rules = z.object({
  AutomaticallyAfterDays: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
  Duration: z.optional(z.string().check(z.minLength(2), z.maxLength(3))),
  ScheduleExpression: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
});

const lambdaArn = () => z.string().check(z.maxLength(2048), z.regex(LAMBDA_ARN, 'must be a Lambda function ARN'));

/** The schedule AWS's rules give: `AutomaticallyAfterDays` as `rate(N days)`, else the expression itself. */
function scheduleOf(given: z.infer<typeof rules>): string {
  if (given.AutomaticallyAfterDays !== undefined && given.ScheduleExpression !== undefined)
    throw new AwsError('InvalidParameterException', 'RotationRules: give AutomaticallyAfterDays or ScheduleExpression, not both.');
  if (given.AutomaticallyAfterDays !== undefined)
    return given.AutomaticallyAfterDays === 1 ? 'rate(1 day)' : `rate(${given.AutomaticallyAfterDays} days)`;
  if (given.ScheduleExpression !== undefined) return given.ScheduleExpression;
  throw new AwsError('InvalidParameterException', 'RotationRules: AutomaticallyAfterDays or ScheduleExpression is required.');
}

export function makeRotationOperations(rotations: RotationService, lookup: SecretLookup, place: AwsPlace): Record<string, AwsOperation> {
  const named = (secret: Parameters<typeof secretArn>[1]) => ({ ARN: secretArn(place, secret), Name: secretPath(secret) });
  return {
    RotateSecret: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        ClientRequestToken: z.optional(z.string().check(z.regex(/^[\x21-\x7e]{32,64}$/, 'must be 32 to 64 printable ASCII characters'))),
        RotationLambdaARN: z.optional(lambdaArn()),
        RotationRules: z.optional(rules),
        RotateImmediately: z.optional(z.boolean()),
      }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        const existing = await rotations.rotationRecord(principal, secret);
        if (input.RotationLambdaARN !== undefined || input.RotationRules !== undefined || !existing?.enabled) {
          // Rotation turned off keeps no rules to fall back on: AWS's clients give them again.
          const given = input.RotationRules ?? (existing?.enabled ? existing.rules : {});
          await rotations.configureRotation(principal, secret.id, {
            functionArn: input.RotationLambdaARN ?? existing?.functionArn ?? null,
            schedule: scheduleOf(given),
            rules: given,
            duration: given.Duration ?? null,
            generator: existing?.generator ?? null,
          });
        }
        if (input.RotateImmediately === false) return named(secret);
        const started = await rotations.startRotation(principal, secret.id, input.ClientRequestToken);
        return { ...named(secret), VersionId: started.versionId };
      },
    }),

    CancelRotateSecret: defineOperation({
      input: z.object({ SecretId: secretIdSchema() }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        await rotations.cancelRotation(principal, secret.id);
        return named(secret);
      },
    }),
  };
}

/** What DescribeSecret shows of a rotation, as AWS names it (nothing when none was ever configured). */
export function describedRotation(rotation: StoredRotation | undefined) {
  if (!rotation) return { RotationEnabled: false };
  const epoch = (iso: string | null) => (iso === null ? undefined : Math.floor(Date.parse(iso) / 1000));
  return {
    RotationEnabled: rotation.enabled,
    ...(rotation.functionArn && { RotationLambdaARN: rotation.functionArn }),
    RotationRules: rotation.rules,
    ...(rotation.lastRotatedAt && { LastRotatedDate: epoch(rotation.lastRotatedAt) }),
    ...(rotation.enabled && rotation.nextRotationAt && { NextRotationDate: epoch(rotation.nextRotationAt) }),
  };
}
