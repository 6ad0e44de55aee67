import * as z from 'zod/mini';
import type { SecretService } from '../secrets/index.ts';
import { secretArn, secretPath, type AwsPlace } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { secretIdSchema } from './get-secret-value.ts';
import type { SecretLookup } from './secret-lookup.ts';

/**
 * Resource policies (decisions.md v1.4): none can be attached here, because an access key's permissions are the
 * policy. Terraform's `aws_secretsmanager_secret` reads one on every refresh and deletes one when none is configured,
 * so the reads answer "none" as AWS does for a secret without a policy; attaching or validating one is refused,
 * naming the way to grant access instead. Each asks the policy through the secrets service as REST would.
 */

const NO_POLICIES =
  "resource policies can't be attached to secrets of this service: grant access with an access key's permissions (POST /api/v1/access-keys, `permissions`).";

export function makeResourcePolicyOperations(secrets: SecretService, lookup: SecretLookup, place: AwsPlace): Record<string, AwsOperation> {
  const refused = (operation: string) =>
    defineOperation({
      input: z.object({
        SecretId: z.optional(secretIdSchema()),
        ResourcePolicy: z.optional(z.string().check(z.maxLength(20480))),
        BlockPublicPolicy: z.optional(z.boolean()),
      }),
      handle: async () => {
        throw new AwsError('InvalidRequestException', `${operation}: ${NO_POLICIES}`);
      },
    });
  return {
    // `read`: the secret as the caller may read it (ResourceNotFoundException otherwise), and no ResourcePolicy.
    GetResourcePolicy: defineOperation({
      input: z.object({ SecretId: secretIdSchema() }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        return { ARN: secretArn(place, secret), Name: secretPath(secret) };
      },
    }),
    // `write`, as removing a policy would need; there is none to remove, so nothing changes and nothing is audited.
    DeleteResourcePolicy: defineOperation({
      input: z.object({ SecretId: secretIdSchema() }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        await secrets.authorize(principal, 'write', secret);
        return { ARN: secretArn(place, secret), Name: secretPath(secret) };
      },
    }),
    PutResourcePolicy: refused('PutResourcePolicy'),
    ValidateResourcePolicy: refused('ValidateResourcePolicy'),
  };
}
