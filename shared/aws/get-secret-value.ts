import * as z from 'zod/mini';
import type { Principal } from '../platform/principal.ts';
import { SECRET_PATH, type SecretRecord } from '../secrets/index.ts';
import type { SecretReveals } from '../secrets/index.ts';
import {
  checkStageOn,
  labelsOf,
  latestVersionOf,
  secretArn,
  secretPath,
  stagesOf,
  versionIdOf,
  versionOfVersionId,
  type AwsPlace,
} from '../secrets/index.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { epochSeconds, firstFound, matchesReference, parseSecretId, valueField } from './names.ts';

/**
 * GetSecretValue (decisions.md, "The AWS Secrets Manager API"): the one operation a cold start of the AWS API's
 * function reads, over the secrets feature's reveals alone (the policy asked, `reveal`, audited before the value
 * leaves, counted against the reveal limits), the secret read ahead with the key as REST's reveal by path does.
 */

export const secretIdSchema = () => z.string().check(z.minLength(1), z.maxLength(2048));

/**
 * The version a VersionId and a VersionStage name of a secret (neither: the current one). A VersionId is resolved as
 * secret-names.ts says (`versionOfId` reads a write's stored token), labelled or not; with a VersionStage too, the
 * stage must be on that version (StageMismatchError otherwise). Undefined (ResourceNotFoundException) when they name
 * no version; a version a rotation reserved is named, and its reveal finds no value.
 */
async function versionNamed(
  secret: SecretRecord,
  versionId: string | undefined,
  stage: string | undefined,
  versionOfId: (versionId: string) => Promise<number | undefined>,
): Promise<number | undefined> {
  if (versionId !== undefined) {
    const named = await versionOfVersionId(secret, versionId, versionOfId);
    if (named === undefined || named < 1 || named > latestVersionOf(secret)) return undefined;
    if (stage !== undefined) checkStageOn(secret, named, stage);
    return named;
  }
  const version = stage === undefined ? secret.currentVersion : labelsOf(secret)[stage];
  // A label's own entry only, never a member of Object's prototype that a label may be named after; 0: no value yet.
  return typeof version === 'number' && version >= 1 ? version : undefined;
}

/** After a lookup by name missed: what the SecretId names instead (a deleted secret's InvalidRequestException), or `error`. */
export type Missed = (principal: Principal, secretId: string, error: unknown) => Promise<never>;

export function makeGetSecretValue(
  secrets: Pick<SecretReveals, 'revealSelected' | 'prefetch'>,
  missed: Missed,
  place: AwsPlace,
): AwsOperation {
  return defineOperation({
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
          input.VersionId,
        ),
      ).catch((error) => missed(principal, input.SecretId, error));
      return {
        ARN: secretArn(place, revealed.secret),
        Name: secretPath(revealed.secret),
        // The head keeps only labelled versions' tokens: a version read by its VersionId is answered under that id.
        VersionId: input.VersionId ?? versionIdOf(revealed.secret, revealed.version),
        ...valueField(revealed),
        VersionStages: stagesOf(revealed.secret, revealed.version),
        CreatedDate: epochSeconds(revealed.versionCreatedAt),
      };
    },
  });
}
