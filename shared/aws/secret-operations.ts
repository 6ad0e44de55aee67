import * as z from 'zod/mini';
import { NotFoundError, ValidationError } from '../platform/errors.ts';
import type { SecretRecord, SecretService } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import {
  derivedVersionId,
  epochSeconds,
  matchesReference,
  parseSecretId,
  secretArn,
  secretName,
  stagesOf,
  versionOfDerivedId,
  type AwsPlace,
  type SecretReference,
} from './names.ts';

/**
 * The reads of the AWS API over the secrets service (decisions.md, "The AWS Secrets Manager API"): each calls the
 * service method REST calls, which asks the policy first (`reveal` for a value, `read` otherwise), audits, and
 * counts reveals against the rate limits. Only AWS's shapes are made here.
 */

const secretId = () => z.string().check(z.minLength(1), z.maxLength(2048));

/** Tries each reference a SecretId may be (names.ts) in order; the first that names a secret answers. */
async function firstFound<T>(references: readonly SecretReference[], attempt: (reference: SecretReference) => Promise<T>): Promise<T> {
  for (const reference of references) {
    try {
      return await attempt(reference);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  throw new AwsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
}

/** The version a VersionId and a VersionStage name of a secret (both, if given, must name the same one). */
function versionNamed(secret: SecretRecord, versionId: string | undefined, stage: string | undefined): number | undefined {
  let version = secret.currentVersion;
  if (versionId !== undefined) {
    const named = versionOfDerivedId(secret.id, versionId);
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

export function makeSecretOperations(secrets: SecretService, place: AwsPlace): Record<string, AwsOperation> {
  /** The secret a SecretId names, as the caller may read it (`read`), never its value. */
  const describedSecret = (principal: Parameters<SecretService['readByPath']>[0], id: string) =>
    firstFound(parseSecretId(id, place), async (reference) => {
      const found = await secrets.readByPath(principal, reference.name);
      if (!matchesReference(reference, found.id)) throw new NotFoundError('no such secret');
      return found;
    });

  return {
    GetSecretValue: defineOperation({
      input: z.object({
        SecretId: secretId(),
        VersionId: z.optional(z.string().check(z.minLength(32), z.maxLength(64))),
        VersionStage: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      }),
      handle: async (principal, input) => {
        const revealed = await firstFound(parseSecretId(input.SecretId, place), (reference) =>
          secrets.revealSelected(principal, reference.name, (secret) =>
            matchesReference(reference, secret.id) ? versionNamed(secret, input.VersionId, input.VersionStage) : undefined,
          ),
        );
        return {
          ARN: secretArn(place, revealed.secret),
          Name: secretName(revealed.secret),
          VersionId: derivedVersionId(revealed.id, revealed.version),
          SecretString: revealed.value,
          VersionStages: stagesOf(revealed.version, revealed.secret.currentVersion),
          CreatedDate: epochSeconds(revealed.versionCreatedAt),
        };
      },
    }),

    ListSecretVersionIds: defineOperation({
      input: z.object({
        SecretId: secretId(),
        MaxResults: z.optional(z.int().check(z.minimum(1), z.maximum(100))),
        NextToken: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
        IncludeDeprecated: z.optional(z.boolean()),
      }),
      handle: async (principal, input) => {
        const secret = await describedSecret(principal, input.SecretId);
        const named = { ARN: secretArn(place, secret), Name: secretName(secret) };
        const version = (number: number, createdAt: string) => ({
          VersionId: derivedVersionId(secret.id, number),
          VersionStages: stagesOf(number, secret.currentVersion),
          CreatedDate: epochSeconds(createdAt),
        });
        // By default only the versions with a staging label, as AWS lists them: the current one and the one before.
        if (!input.IncludeDeprecated) {
          if (input.NextToken !== undefined) throw new AwsError('InvalidNextTokenException', 'The NextToken value is invalid.');
          const page = await secrets.versions(principal, secret.id, { limit: 2 });
          return {
            ...named,
            Versions: page.items
              .filter((item) => item.version >= secret.currentVersion - 1)
              .map((item) => version(item.version, item.createdAt)),
          };
        }
        let page;
        try {
          page = await secrets.versions(principal, secret.id, { limit: input.MaxResults ?? 100, cursor: input.NextToken });
        } catch (error) {
          if (error instanceof ValidationError && error.message.startsWith('cursor:'))
            throw new AwsError('InvalidNextTokenException', 'The NextToken value is invalid.');
          throw error;
        }
        return {
          ...named,
          Versions: page.items.map((item) => version(item.version, item.createdAt)),
          ...(page.nextCursor !== null && { NextToken: page.nextCursor }),
        };
      },
    }),

    DescribeSecret: defineOperation({
      input: z.object({ SecretId: secretId() }),
      handle: async (principal, input) => {
        const secret = await describedSecret(principal, input.SecretId);
        const versions: Record<string, string[]> = { [derivedVersionId(secret.id, secret.currentVersion)]: ['AWSCURRENT'] };
        if (secret.currentVersion > 1) versions[derivedVersionId(secret.id, secret.currentVersion - 1)] = ['AWSPREVIOUS'];
        return {
          ARN: secretArn(place, secret),
          Name: secretName(secret),
          RotationEnabled: false,
          LastChangedDate: epochSeconds(secret.updatedAt),
          CreatedDate: epochSeconds(secret.createdAt),
          Tags: [],
          VersionIdsToStages: versions,
        };
      },
    }),
  };
}
