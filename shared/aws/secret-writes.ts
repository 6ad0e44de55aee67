import * as z from 'zod/mini';
import { secretKeySchema } from '../platform/http/schemas.ts';
import type { DeletedSecretService, SecretRecord, SecretService, SecretValue, WriteAnswer } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation, type AwsOperation } from './aws-handler.ts';
import { epochSeconds, pathOfName } from './names.ts';
import { checkStages, secretArn, secretPath, stagesOf, versionIdOf, type AwsPlace } from '../secrets/index.ts';
import { markedForDeletion, type SecretLookup } from './secret-lookup.ts';
import { secretIdSchema } from './get-secret-value.ts';
import { checkKmsKeyId } from './kms-key-id.ts';
import { assertReferencesParse } from '../references/reference-resolving.ts';

/**
 * The writes of the AWS API (decisions.md, "The AWS Secrets Manager API"): CreateSecret, PutSecretValue,
 * UpdateSecret, DeleteSecret, RestoreSecret, TagResource and UntagResource, each through the secrets service's
 * method REST uses (which asks the policy: `write`, or `delete` for a delete and a restore), so audit entries and
 * events are REST's. A `ClientRequestToken` becomes the new version's VersionId; the same token with the same value
 * makes no new version, with another value it is ResourceExistsException.
 */

const MAX_TAGS = 50;
const MAX_BINARY_BYTES = 65_536;
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

const clientRequestToken = () =>
  z.optional(z.string().check(z.regex(/^[\x21-\x7e]{32,64}$/, 'must be 32 to 64 printable ASCII characters')));
const secretString = () => z.optional(z.string().check(z.maxLength(65536)));
/** SecretBinary as AWS's JSON protocol carries a blob: base64 text of 1 to 65,536 bytes (checked by `valueOf`). */
const secretBinary = () => z.optional(z.string().check(z.minLength(1), z.maxLength(Math.ceil(MAX_BINARY_BYTES / 3) * 4)));
const description = () => z.optional(z.string().check(z.maxLength(2048)));
const kmsKeyId = () => z.optional(z.string().check(z.minLength(1), z.maxLength(2048)));
/** A field of AWS's request that this service does not serve: refused by name when present (see `refuseFields`). */
const unsupported = () => z.optional(z.unknown());

const tagText = () => z.regex(TAG_TEXT, 'may contain only letters, digits, spaces and _ . : / = + - @');
const tagKey = () =>
  z.string().check(
    z.minLength(1),
    z.maxLength(128),
    tagText(),
    z.refine((key) => !key.toLowerCase().startsWith('aws:'), { error: 'must not begin with "aws:" (reserved by AWS)' }),
  );
const tagValue = () => z.string().check(z.maxLength(256), tagText());
const tagsSchema = () => z.array(z.object({ Key: tagKey(), Value: tagValue() })).check(z.maxLength(MAX_TAGS));

/** InvalidParameterException naming the first field of `fields` the request has: a feature this service does not serve. */
function refuseFields(input: Record<string, unknown>, fields: readonly string[]) {
  const given = fields.find((field) => input[field] !== undefined && input[field] !== null);
  if (given === undefined) return;
  const why: Record<string, string> = {
    AddReplicaRegions: 'replica regions are not supported by this service',
    ForceOverwriteReplicaSecret: 'replica regions are not supported by this service',
  };
  throw new AwsError('InvalidParameterException', `${given}: ${why[given] ?? 'not supported by this service'}.`);
}

/**
 * The value a write carries (decisions.md v1.4): SecretString as text, or SecretBinary (1 to 65,536 bytes) kept as
 * its base64 text with `encoding: 'base64'`, written back canonically so one value has one form; null for neither
 * (CreateSecret makes a secret without a value). Both at once is InvalidParameterException, as AWS has it; so is a
 * SecretString whose references do not parse (a VALIDATION_ERROR naming SecretString, mapped by aws-errors.ts).
 */
export function valueOf(input: { SecretString?: string | undefined; SecretBinary?: string | undefined }): SecretValue | null {
  if (input.SecretString !== undefined && input.SecretBinary !== undefined)
    throw new AwsError('InvalidParameterException', 'SecretString and SecretBinary: give one of them, not both.');
  if (input.SecretString !== undefined) {
    // Checked here too, before anything changes: UpdateSecret changes a description before it writes the value.
    assertReferencesParse(input.SecretString, 'SecretString');
    return { value: input.SecretString, field: 'SecretString' };
  }
  if (input.SecretBinary === undefined) return null;
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(input.SecretBinary) ? Buffer.from(input.SecretBinary, 'base64') : undefined;
  if (!bytes || bytes.length < 1 || bytes.length > MAX_BINARY_BYTES)
    throw new AwsError('InvalidParameterException', `SecretBinary: must be 1 to ${MAX_BINARY_BYTES} bytes, base64-encoded.`);
  return { value: bytes.toString('base64'), encoding: 'base64' };
}

/** The value a PutSecretValue or UpdateSecret with a value needs: one of SecretString and SecretBinary. */
function requiredValueOf(input: { SecretString?: string | undefined; SecretBinary?: string | undefined }): SecretValue {
  const value = valueOf(input);
  if (!value) throw new AwsError('InvalidParameterException', 'SecretString or SecretBinary: one is required (a version is its value).');
  return value;
}

const tagsOf = (tags: readonly { Key: string; Value: string }[]) => Object.fromEntries(tags.map((tag) => [tag.Key, tag.Value]));

/** The tags after a change, at most 50. */
function tagsWithin(tags: Record<string, string>): Record<string, string> | null {
  if (Object.keys(tags).length > MAX_TAGS) throw new AwsError('InvalidParameterException', `Tags: a secret has at most ${MAX_TAGS} tags.`);
  return Object.keys(tags).length === 0 ? null : tags;
}

export function makeSecretWrites(
  secrets: SecretService,
  deletedSecrets: DeletedSecretService,
  lookup: SecretLookup,
  place: AwsPlace,
  /** The names of the key values are sealed under (kms-key-id.ts, `ownKeyNames`). */
  keyNames: readonly string[],
): Record<string, AwsOperation> {
  const named = (secret: Pick<SecretRecord, 'id' | 'projectSlug' | 'envSlug' | 'key'>) => ({
    ARN: secretArn(place, secret),
    Name: secretPath(secret),
  });
  // A secret created without a value has no version, so no VersionId (as AWS answers it).
  const written = (answer: WriteAnswer) => ({
    ...named(answer.secret),
    ...(answer.version > 0 && { VersionId: answer.versionId ?? versionIdOf(answer.secret, answer.version) }),
  });
  const describeChange = (change: string, keys?: string[]) => () => ({ changed: change, ...(keys && { tagKeys: keys }) });

  return {
    CreateSecret: defineOperation({
      input: z.object({
        Name: z.string().check(z.minLength(1), z.maxLength(512)),
        ClientRequestToken: clientRequestToken(),
        Description: description(),
        SecretString: secretString(),
        Tags: z.optional(tagsSchema()),
        SecretBinary: secretBinary(),
        KmsKeyId: kmsKeyId(),
        AddReplicaRegions: unsupported(),
        ForceOverwriteReplicaSecret: z.optional(z.boolean()),
      }),
      handle: async (principal, input) => {
        refuseFields(input, ['AddReplicaRegions']);
        checkKmsKeyId(input.KmsKeyId, keyNames);
        const path = pathOfName(input.Name);
        if (!path)
          throw new AwsError(
            'InvalidParameterException',
            'Name: must be <projectSlug>/<envSlug>/<KEY> of an existing project and environment.',
          );
        const key = secretKeySchema().safeParse(path.key);
        if (!key.success)
          throw new AwsError('InvalidParameterException', `Name: its key ${key.error.issues[0]?.message ?? 'is not valid'}.`);
        const value = valueOf(input);
        // A name in its recovery window is taken, as AWS has it (REST frees the key at once): a condition of the write.
        const answer = await secrets.writeAtPath(principal, path, value, {
          ifMatch: 0,
          mustCreate: true,
          notInRecoveryWindow: true,
          versionId: input.ClientRequestToken,
          metadata: { description: input.Description || null, tags: input.Tags?.length ? tagsOf(input.Tags) : null },
        });
        return written(answer);
      },
    }),

    PutSecretValue: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        ClientRequestToken: clientRequestToken(),
        SecretString: secretString(),
        VersionStages: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.minLength(1), z.maxLength(20))),
        SecretBinary: secretBinary(),
      }),
      handle: async (principal, input) => {
        if (input.VersionStages) checkStages(input.VersionStages, 'VersionStages');
        const value = requiredValueOf(input);
        const secret = await lookup.liveSecret(principal, input.SecretId);
        const answer = await secrets.writeExisting(principal, secret, value, {
          versionId: input.ClientRequestToken,
          stages: input.VersionStages,
        });
        return { ...written(answer), VersionStages: stagesOf(answer.secret, answer.version) };
      },
    }),

    UpdateSecret: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        ClientRequestToken: clientRequestToken(),
        Description: description(),
        SecretString: secretString(),
        SecretBinary: secretBinary(),
        KmsKeyId: kmsKeyId(),
      }),
      handle: async (principal, input) => {
        checkKmsKeyId(input.KmsKeyId, keyNames);
        const value = valueOf(input);
        let secret = await lookup.liveSecret(principal, input.SecretId);
        // A value the caller may not write (a review policy) must not leave a changed description behind.
        if (value !== null) await secrets.mayWriteValue(principal, secret, input.ClientRequestToken);
        if (input.Description !== undefined && input.Description !== (secret.description ?? '')) {
          const description = input.Description === '' ? null : input.Description;
          secret = await secrets.updateMetadata(principal, secret.id, () => ({ description }), describeChange('description'));
        }
        if (value === null) return named(secret);
        return written(await secrets.writeExisting(principal, secret, value, { versionId: input.ClientRequestToken }));
      },
    }),

    DeleteSecret: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        RecoveryWindowInDays: z.optional(z.int().check(z.minimum(7), z.maximum(30))),
        ForceDeleteWithoutRecovery: z.optional(z.boolean()),
      }),
      handle: async (principal, input) => {
        if (input.ForceDeleteWithoutRecovery && input.RecoveryWindowInDays !== undefined)
          throw new AwsError('InvalidParameterException', "RecoveryWindowInDays: can't be given with ForceDeleteWithoutRecovery.");
        const found = await lookup.anySecret(principal, input.SecretId);
        if (found.deleted) throw markedForDeletion();
        const days = input.ForceDeleteWithoutRecovery ? 0 : (input.RecoveryWindowInDays ?? 30);
        const deleted = await secrets.delete(principal, found.live.id, days);
        return { ...named(found.live), DeletionDate: epochSeconds(deleted.purgeAt) };
      },
    }),

    RestoreSecret: defineOperation({
      input: z.object({ SecretId: secretIdSchema() }),
      handle: async (principal, input) => {
        const found = await lookup.anySecret(principal, input.SecretId);
        if (found.live) throw new AwsError('InvalidRequestException', 'The secret is not scheduled for deletion.');
        await deletedSecrets.restore(principal, found.deleted.id);
        return named(found.deleted);
      },
    }),

    TagResource: defineOperation({
      input: z.object({ SecretId: secretIdSchema(), Tags: tagsSchema() }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        const added = tagsOf(input.Tags);
        await secrets.updateMetadata(
          principal,
          secret.id,
          (current) => ({ tags: tagsWithin({ ...current.tags, ...added }) }),
          describeChange('tags', Object.keys(added)),
        );
        return {};
      },
    }),

    UntagResource: defineOperation({
      input: z.object({
        SecretId: secretIdSchema(),
        TagKeys: z.array(z.string().check(z.minLength(1), z.maxLength(128))).check(z.maxLength(MAX_TAGS)),
      }),
      handle: async (principal, input) => {
        const secret = await lookup.liveSecret(principal, input.SecretId);
        await secrets.updateMetadata(
          principal,
          secret.id,
          (current) => ({
            tags: tagsWithin(Object.fromEntries(Object.entries(current.tags ?? {}).filter(([key]) => !input.TagKeys.includes(key)))),
          }),
          describeChange('tags', input.TagKeys),
        );
        return {};
      },
    }),
  };
}
