import * as z from 'zod/mini';
import type { SecretRecord, SecretService } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { secretIdSchema } from './get-secret-value.ts';
import { epochSeconds, lastChanged } from './names.ts';
import { secretArn, secretPath, versionIdsToStages, type AwsPlace } from '../secrets/index.ts';
import { withNextToken, type SecretLookup } from './secret-lookup.ts';

/**
 * The reads of the AWS API over the secrets service (decisions.md, "The AWS Secrets Manager API"): each calls the
 * service method REST calls, which asks the policy first (`reveal` for a value, `read` otherwise), audits, and
 * counts reveals against the rate limits. Only AWS's shapes are made here.
 */

/** A secret's tags as AWS lists them, by key (the table keeps a map, which has no order). */
export const tagList = (secret: Pick<SecretRecord, 'tags'>) =>
  Object.entries(secret.tags ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([Key, Value]) => ({ Key, Value }));

/** DescribeSecret and ListSecretVersionIds (GetSecretValue is get-secret-value.ts, read at a cold start). */
export function makeSecretOperations(secrets: SecretService, lookup: SecretLookup, place: AwsPlace): Record<string, AwsOperation> {
  return {
    ListSecretVersionIds: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        MaxResults: z.optional(z.int().check(z.minimum(1), z.maximum(100))),
        NextToken: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
        IncludeDeprecated: z.optional(z.boolean()),
      }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        const named = { ARN: secretArn(place, secret), Name: secretPath(secret) };
        const version = (item: { createdAt: string; versionId: string; stages: string[] }) => ({
          VersionId: item.versionId,
          VersionStages: item.stages,
          CreatedDate: epochSeconds(item.createdAt),
        });
        // By default only the versions with a staging label, as AWS lists them: the current one and the one before.
        if (!input.IncludeDeprecated) {
          if (input.NextToken !== undefined) throw new AwsError('InvalidNextTokenException', 'The NextToken value is invalid.');
          const page = await secrets.versions(principal, secret.id, { limit: 2 });
          return { ...named, Versions: page.items.filter((item) => item.version >= secret.currentVersion - 1).map(version) };
        }
        const page = await withNextToken(() =>
          secrets.versions(principal, secret.id, { limit: input.MaxResults ?? 100, cursor: input.NextToken }),
        );
        return {
          ...named,
          Versions: page.items.map(version),
          ...(page.nextCursor !== null && { NextToken: page.nextCursor }),
        };
      },
    }),

    DescribeSecret: defineOperation({
      input: z.object({ SecretId: secretIdSchema() }),
      handle: async (principal, input) => {
        const found = await lookup.anySecret(principal, input.SecretId);
        const secret = found.live ?? found.deleted;
        return {
          ARN: secretArn(place, secret),
          Name: secretPath(secret),
          ...(secret.description !== undefined && { Description: secret.description }),
          RotationEnabled: false,
          LastChangedDate: lastChanged(secret),
          CreatedDate: epochSeconds(secret.createdAt),
          ...(found.deleted && { DeletedDate: epochSeconds(found.deleted.deletedAt) }),
          Tags: tagList(secret),
          VersionIdsToStages: versionIdsToStages(secret),
        };
      },
    }),
  };
}
