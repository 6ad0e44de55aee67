import * as z from 'zod/mini';
import type { SecretRecord, SecretService } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { secretIdSchema } from './get-secret-value.ts';
import { epochSeconds, lastChanged } from './names.ts';
import { hasValue, secretArn, secretPath, stagesOf, versionIdOf, versionIdsToStages, type AwsPlace } from '../secrets/index.ts';
import { withNextToken, type SecretLookup } from './secret-lookup.ts';
import { describedRotation } from './rotation-operations.ts';
import type { RotationService } from '../rotation/index.ts';

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

/** DescribeSecret, ListSecretVersionIds and UpdateSecretVersionStage (GetSecretValue is get-secret-value.ts). */
export function makeSecretOperations(
  secrets: SecretService,
  lookup: SecretLookup,
  place: AwsPlace,
  rotations: Pick<RotationService, 'rotationRecord'>,
): Record<string, AwsOperation> {
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
        // By default only the versions with a staging label, as AWS lists them (a reserved one without its date).
        if (!input.IncludeDeprecated) {
          if (input.NextToken !== undefined) throw new AwsError('InvalidNextTokenException', 'The NextToken value is invalid.');
          const labelled = await secrets.labelledVersions(principal, secret);
          return {
            ...named,
            Versions: labelled.map((item) => ({
              VersionId: item.versionId,
              VersionStages: item.stages,
              ...(item.createdAt !== null && { CreatedDate: epochSeconds(item.createdAt) }),
            })),
          };
        }
        const page = await withNextToken(() =>
          secrets.versions(principal, secret.id, { limit: input.MaxResults ?? 100, cursor: input.NextToken }),
        );
        // A version a rotation reserved has no item yet: the first page names it, as DescribeSecret does.
        const reserved = input.NextToken === undefined ? (secret.unfilled ?? []) : [];
        return {
          ...named,
          Versions: [
            ...reserved.map((number) => ({ VersionId: versionIdOf(secret, number), VersionStages: stagesOf(secret, number) })),
            ...page.items.map(version),
          ],
          ...(page.nextCursor !== null && { NextToken: page.nextCursor }),
        };
      },
    }),

    UpdateSecretVersionStage: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        VersionStage: z.string().check(z.minLength(1), z.maxLength(256)),
        MoveToVersionId: z.optional(z.string().check(z.minLength(32), z.maxLength(64))),
        RemoveFromVersionId: z.optional(z.string().check(z.minLength(32), z.maxLength(64))),
      }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        await secrets.moveStage(principal, secret, input.VersionStage, input.MoveToVersionId, input.RemoveFromVersionId);
        return { ARN: secretArn(place, secret), Name: secretPath(secret) };
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
          ...describedRotation(await rotations.rotationRecord(principal, secret)),
          LastChangedDate: lastChanged(secret),
          CreatedDate: epochSeconds(secret.createdAt),
          ...(found.deleted && { DeletedDate: epochSeconds(found.deleted.deletedAt) }),
          Tags: tagList(secret),
          // A secret created without a value has no version: AWS leaves the field out.
          ...(hasValue(secret) && { VersionIdsToStages: versionIdsToStages(secret) }),
        };
      },
    }),
  };
}
