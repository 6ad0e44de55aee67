import * as z from 'zod/mini';
import { SECRET_PATH, type SecretRecord, type SecretService } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { epochSeconds, lastChanged, matchesReference, parseSecretId } from './names.ts';
import { secretArn, secretPath, stagesOf, versionIdOf, versionIdsToStages, versionOfDerivedId, type AwsPlace } from '../secrets/index.ts';
import { firstFound, withNextToken, type SecretLookup } from './secret-lookup.ts';

/**
 * The reads of the AWS API over the secrets service (decisions.md, "The AWS Secrets Manager API"): each calls the
 * service method REST calls, which asks the policy first (`reveal` for a value, `read` otherwise), audits, and
 * counts reveals against the rate limits. Only AWS's shapes are made here.
 */

export const secretIdSchema = () => z.string().check(z.minLength(1), z.maxLength(2048));

/** A secret's tags as AWS lists them, by key (the table keeps a map, which has no order). */
export const tagList = (secret: Pick<SecretRecord, 'tags'>) =>
  Object.entries(secret.tags ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([Key, Value]) => ({ Key, Value }));

/**
 * The version a VersionId and a VersionStage name of a secret (both, if given, must name the same one): a VersionId
 * is one the head keeps, one derived from the secret's id, or one a write's token stored (`versionOfId` reads it).
 */
async function versionNamed(
  secret: SecretRecord,
  versionId: string | undefined,
  stage: string | undefined,
  versionOfId: (versionId: string) => Promise<number | undefined>,
): Promise<number | undefined> {
  let version = secret.currentVersion;
  if (versionId !== undefined) {
    const kept = Object.entries(secret.versionIds ?? {}).find(([, id]) => id === versionId)?.[0];
    const derived = versionOfDerivedId(secret.id, versionId);
    // A derived id names its version unless a write's token replaced it there (the head keeps those of labelled ones).
    const named =
      kept !== undefined
        ? Number(kept)
        : derived !== undefined && versionIdOf(secret, derived) === versionId
          ? derived
          : await versionOfId(versionId);
    if (named === undefined || named > secret.currentVersion) return undefined;
    version = named;
  } else if (stage === 'AWSPREVIOUS') {
    version = secret.currentVersion - 1;
  } else if (stage !== undefined && stage !== 'AWSCURRENT') {
    return undefined;
  }
  if (version < 1) return undefined;
  if (stage !== undefined && !stagesOf(version, secret.currentVersion).includes(stage)) return undefined;
  return version;
}

export function makeSecretOperations(secrets: SecretService, lookup: SecretLookup, place: AwsPlace): Record<string, AwsOperation> {
  return {
    GetSecretValue: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        VersionId: z.optional(z.string().check(z.minLength(32), z.maxLength(64))),
        VersionStage: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      }),
      // The secret a plain name or whole ARN names is read with the key, eventually consistently, as REST's reveal.
      prefetch: (workspaceId, raw) => {
        const first = typeof raw.SecretId === 'string' ? parseSecretId(raw.SecretId, place)[0] : undefined;
        return first && SECRET_PATH.test(first.name) ? secrets.prefetch.revealByPath(workspaceId, first.name) : [];
      },
      handle: async (principal, input, _log, prefetched) => {
        const revealed = await firstFound(parseSecretId(input.SecretId, place), (reference) =>
          secrets.revealSelected(
            principal,
            reference.name,
            async (secret, versionOfId) =>
              matchesReference(reference, secret.id) ? versionNamed(secret, input.VersionId, input.VersionStage, versionOfId) : undefined,
            prefetched,
          ),
        ).catch((error) => lookup.missed(principal, input.SecretId, error));
        return {
          ARN: secretArn(place, revealed.secret),
          Name: secretPath(revealed.secret),
          VersionId: versionIdOf(revealed.secret, revealed.version),
          SecretString: revealed.value,
          VersionStages: stagesOf(revealed.version, revealed.secret.currentVersion),
          CreatedDate: epochSeconds(revealed.versionCreatedAt),
        };
      },
    }),

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
