import * as z from 'zod/mini';
import { idSchema, maxUnits, minUnits } from '../../shared/platform/http/schemas.ts';
import { defineRoute, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import { rotationDetail } from '../../shared/secrets/secret-answers.ts';
import { LAMBDA_ARN, type RotationService } from '../../shared/rotation/index.ts';

/**
 * Rotation on REST (decisions.md v1.3, "Rotation"): configure it, turn it off, start one now. Each needs `write` on
 * the secret (the service asks the policy); configuring is audited `secret.rotation_configure` and starts nothing.
 */

const secretParams = once(() => z.object({ secretId: idSchema('secret') }));

/** A Lambda function's ARN, as the AWS API's RotationLambdaARN takes it. */
export const functionArnSchema = () => z.string().check(maxUnits(2048), z.regex(LAMBDA_ARN, 'must be a Lambda function ARN'));

export const generatorSchema = once(() =>
  z.strictObject({
    length: z.optional(z.int().check(z.minimum(4), z.maximum(4096))),
    excludeCharacters: z.optional(z.string().check(maxUnits(4096))),
    excludeNumbers: z.optional(z.boolean()),
    excludePunctuation: z.optional(z.boolean()),
    excludeUppercase: z.optional(z.boolean()),
    excludeLowercase: z.optional(z.boolean()),
    includeSpace: z.optional(z.boolean()),
  }),
);

type RotationRouteKey =
  | 'PUT /api/v1/secrets/{secretId}/rotation'
  | 'DELETE /api/v1/secrets/{secretId}/rotation'
  | 'POST /api/v1/secrets/{secretId}/rotate';

export function rotationRoutes(service: RotationService): Record<RotationRouteKey, () => RouteDefinition> {
  return {
    'PUT /api/v1/secrets/{secretId}/rotation': () =>
      defineRoute({
        operationId: 'configureRotation',
        summary: "Configure a secret's rotation",
        description: [
          '`function`: the ARN of an AWS-style rotation function (only those the stack may invoke), or null to have the service',
          'write a random value itself with `generator` (default: 32 characters of every class, without `"\'`\\\\` or a space).',
          '`schedule`: `rate(N hours|days)` or `cron(…)`, at most one rotation every 4 hours (a cron whose fires can come closer is',
          'VALIDATION_ERROR); `duration`: the window a scheduled start may take (1h to 24h).',
          'Needs `write`; audited `secret.rotation_configure`; starts no rotation.',
        ].join(' '),
        response: rotationDetail(),
        errors: ['NOT_FOUND', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        body: z.strictObject({
          function: z.nullable(functionArnSchema()),
          schedule: z.string().check(minUnits(1), maxUnits(256)),
          duration: z.optional(z.nullable(z.string().check(maxUnits(8)))),
          generator: z.optional(generatorSchema()),
        }),
        handler: async ({ principal, params, body }) => ({
          data: await service.configureRotation(principal, params.secretId, {
            functionArn: body.function,
            schedule: body.schedule,
            rules: { ScheduleExpression: body.schedule, ...(body.duration ? { Duration: body.duration } : {}) },
            duration: body.duration ?? null,
            generator: body.generator ?? null,
          }),
        }),
      }),
    'DELETE /api/v1/secrets/{secretId}/rotation': () =>
      defineRoute({
        operationId: 'cancelRotation',
        summary: "Turn a secret's rotation off",
        description:
          'No scheduled rotation starts afterwards; one running now ends on its own. Needs `write`; audited `secret.rotation_configure`.',
        response: z.nullable(rotationDetail()),
        errors: ['NOT_FOUND', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        handler: async ({ principal, params }) => ({ data: await service.cancelRotation(principal, params.secretId) }),
      }),
    'POST /api/v1/secrets/{secretId}/rotate': () =>
      defineRoute({
        operationId: 'rotateSecret',
        status: 202,
        summary: 'Start a rotation now',
        description: [
          "Records the rotation's token as a version labelled AWSPENDING and starts the steps; `versionId` names the version it makes.",
          'CONFLICT when rotation is not configured or one is running. The start is audited `secret.rotation_start` by the caller;',
          'success `secret.rotation_succeeded` (and the new value fires `service.secret.rotate`), failure `secret.rotation_failed`',
          'with `service.secret.rotation_failed`, both with `metadata.startedBy` (the caller, or `schedule`). Needs `write`.',
        ].join(' '),
        response: z.object({ secretId: z.string(), versionId: z.string() }),
        errors: ['NOT_FOUND', 'CONFLICT', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        handler: async ({ principal, params }) => ({
          data: { secretId: params.secretId, ...(await service.startRotation(principal, params.secretId)) },
        }),
      }),
  };
}
