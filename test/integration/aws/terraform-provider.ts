import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetResourcePolicyCommand,
  GetSecretValueCommand,
  type GetSecretValueCommandInput,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  TagResourceCommand,
  type Tag,
  UntagResourceCommand,
  UpdateSecretCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

/**
 * The calls Terraform's `aws` provider makes for Secrets Manager, replayed call for call through the AWS SDK for
 * JavaScript: what each function sends is what the provider's Go code sends (aws-sdk-go-v2 leaves a nil pointer and
 * a false `bool` out of the request), and what it returns is what the provider would keep in its state. Read from
 * hashicorp/terraform-provider-aws, internal/service/secretsmanager/ (see terraform-replay.test.ts for the files and
 * commits). The provider's retries and waits are kept as predicates and short polls.
 */

type Sm = SecretsManagerClient;
type Tags = Record<string, string>;

export const CURRENT = 'AWSCURRENT';
export const PREVIOUS = 'AWSPREVIOUS';

let counter = 0;
/** terraform-plugin-sdk's `id.UniqueId()`: `terraform-`, the UTC time to the microsecond (20 digits), a counter. */
export function uniqueId(): string {
  counter += 1;
  const stamp = new Date().toISOString().replace(/\D/g, '');
  return `terraform-${stamp}000${counter.toString(16).padStart(8, '0')}`;
}

/** `errs.IsA` / `errs.IsAErrorMessageContains` of the provider. */
export const isA = (error: unknown, name: string, contains = '') =>
  error instanceof Error && error.name === name && error.message.includes(contains);

/** The errors `resourceSecretCreate` retries until its timeout, to recreate a secret just deleted. */
export const createRetries = (error: unknown) =>
  isA(error, 'InvalidRequestException', 'scheduled for deletion') || isA(error, 'InvalidRequestException', 'was deleted');

/** `RetryWhenNotFound` / `RetryUntilNotFound`, shortened: polls `done` a few times before giving up. */
async function until(done: () => Promise<boolean>) {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timeout while waiting for state to become done');
}

/** Tags as the provider keeps them: a map of key to value. */
export const tagMap = (tags: Tag[] | undefined): Tags => Object.fromEntries((tags ?? []).map((tag) => [tag.Key!, tag.Value!]));
const tagList = (tags: Tags): Tag[] => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
/** Go's `time.RFC3339` in UTC; a nil date would be a nil-pointer panic in the provider, so it throws here. */
export const rfc3339 = (date: Date | undefined) => date!.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `findSecretByID`: DescribeSecret; ResourceNotFoundException, or a DeletedDate, is "not found" (undefined). */
export async function findSecretByID(sm: Sm, id: string) {
  try {
    const output = await sm.send(new DescribeSecretCommand({ SecretId: id }));
    return output.DeletedDate === undefined ? output : undefined;
  } catch (error) {
    if (isA(error, 'ResourceNotFoundException')) return undefined;
    throw error;
  }
}

/** `findSecretPolicyByID`: GetResourcePolicy; not found or marked for deletion is undefined. */
export async function findSecretPolicyByID(sm: Sm, id: string) {
  try {
    return await sm.send(new GetResourcePolicyCommand({ SecretId: id }));
  } catch (error) {
    const marked = "You can't perform this operation on the secret because it was marked for deletion";
    if (isA(error, 'ResourceNotFoundException') || isA(error, 'InvalidRequestException', marked)) return undefined;
    throw error;
  }
}

export interface SecretConfig {
  name: string;
  description?: string;
  kms_key_id?: string;
  tags?: Tags;
}

/** `resourceSecretRead`: the state of `aws_secretsmanager_secret`, or undefined when it is gone (removed from state). */
export async function readSecret(sm: Sm, id: string) {
  const output = await findSecretByID(sm, id);
  if (!output) return undefined;
  const policy = await findSecretPolicyByID(sm, id);
  if (!policy) throw new Error(`reading Secrets Manager Secret (${id}) policy: couldn't find resource`);
  return {
    id,
    arn: output.ARN!,
    description: output.Description ?? '',
    kms_key_id: output.KmsKeyId ?? '',
    name: output.Name!,
    policy: policy.ResourcePolicy ?? '',
    tags: tagMap(output.Tags),
  };
}

export type SecretState = NonNullable<Awaited<ReturnType<typeof readSecret>>>;

/** `resourceSecretCreate`: CreateSecret (no value: that is `aws_secretsmanager_secret_version`), the wait, a read. */
export async function createSecret(sm: Sm, config: SecretConfig): Promise<SecretState> {
  const created = await sm.send(
    new CreateSecretCommand({
      ClientRequestToken: uniqueId(),
      Description: config.description ?? '',
      Name: config.name,
      ...(config.tags && Object.keys(config.tags).length > 0 && { Tags: tagList(config.tags) }),
      ...(config.kms_key_id && { KmsKeyId: config.kms_key_id }),
    }),
  );
  await until(async () => (await findSecretByID(sm, created.ARN!)) !== undefined);
  return (await readSecret(sm, created.ARN!))!;
}

/** `resourceSecretUpdate` for description, kms_key_id and tags (the tagging interceptor: untag, then tag). */
export async function updateSecret(sm: Sm, state: SecretState, config: SecretConfig): Promise<SecretState> {
  if ((config.description ?? '') !== state.description || (config.kms_key_id ?? '') !== state.kms_key_id) {
    await sm.send(
      new UpdateSecretCommand({
        ClientRequestToken: uniqueId(),
        Description: config.description ?? '',
        SecretId: state.id,
        ...(config.kms_key_id && { KmsKeyId: config.kms_key_id }),
      }),
    );
  }
  const wanted = config.tags ?? {};
  const removed = Object.keys(state.tags).filter((key) => !(key in wanted));
  const updated = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => state.tags[key] !== value));
  if (removed.length > 0) await sm.send(new UntagResourceCommand({ SecretId: state.arn, TagKeys: removed }));
  if (Object.keys(updated).length > 0) await sm.send(new TagResourceCommand({ SecretId: state.arn, Tags: tagList(updated) }));
  return (await readSecret(sm, state.id))!;
}

/** `resourceSecretDelete`: a recovery window of 0 is ForceDeleteWithoutRecovery; then waits until it is not found. */
export async function deleteSecret(sm: Sm, id: string, recoveryWindowInDays = 30) {
  try {
    await sm.send(
      new DeleteSecretCommand({
        SecretId: id,
        ...(recoveryWindowInDays === 0 ? { ForceDeleteWithoutRecovery: true } : { RecoveryWindowInDays: recoveryWindowInDays }),
      }),
    );
  } catch (error) {
    if (isA(error, 'ResourceNotFoundException')) return;
    throw error;
  }
  await until(async () => (await findSecretByID(sm, id)) === undefined);
}

/** `findSecretVersion`: GetSecretValue; not found, deleted or marked for deletion is undefined. */
export async function findSecretVersion(sm: Sm, input: GetSecretValueCommandInput) {
  try {
    return await sm.send(new GetSecretValueCommand(input));
  } catch (error) {
    if (
      isA(error, 'ResourceNotFoundException') ||
      isA(error, 'InvalidRequestException', 'because it was deleted') ||
      isA(error, 'InvalidRequestException', 'because it was marked for deletion')
    )
      return undefined;
    throw error;
  }
}

const parseVersionId = (id: string) => {
  const bar = id.indexOf('|');
  return [id.slice(0, bar), id.slice(bar + 1)] as const;
};

/** `resourceSecretVersionRead`: GetSecretValue by SecretId and VersionId; undefined when gone. */
export async function readVersion(sm: Sm, id: string) {
  const [secretId, versionId] = parseVersionId(id);
  const output = await findSecretVersion(sm, { SecretId: secretId, VersionId: versionId });
  if (!output) return undefined;
  return {
    id,
    arn: output.ARN!,
    secret_binary: output.SecretBinary ? Buffer.from(output.SecretBinary).toString('base64') : '',
    secret_id: secretId,
    secret_string: output.SecretString ?? '',
    version_id: output.VersionId!,
    version_stages: [...(output.VersionStages ?? [])].sort(),
  };
}

export type VersionState = NonNullable<Awaited<ReturnType<typeof readVersion>>>;

export interface VersionConfig {
  secret_id: string;
  secret_string?: string;
  /** base64, as the provider's `secret_binary` takes it. */
  secret_binary?: string;
  version_stages?: string[];
}

/** `resourceSecretVersionCreate`: PutSecretValue with the provider's own ClientRequestToken, the wait, a read. */
export async function createVersion(sm: Sm, config: VersionConfig): Promise<VersionState> {
  const output = await sm.send(
    new PutSecretValueCommand({
      ClientRequestToken: uniqueId(),
      SecretId: config.secret_id,
      ...(config.secret_binary && { SecretBinary: Buffer.from(config.secret_binary, 'base64') }),
      ...(config.secret_string && { SecretString: config.secret_string }),
      ...(config.version_stages?.length && { VersionStages: config.version_stages }),
    }),
  );
  const id = `${config.secret_id}|${output.VersionId}`;
  await until(async () => (await findSecretVersion(sm, { SecretId: config.secret_id, VersionId: output.VersionId })) !== undefined);
  return (await readVersion(sm, id))!;
}

/** The VersionId carrying AWSCURRENT, as `resourceSecretVersionUpdate` finds it: ListSecretVersionIds, paged. */
async function currentVersionId(sm: Sm, secretId: string) {
  let token: string | undefined;
  do {
    const page = await sm.send(new ListSecretVersionIdsCommand({ SecretId: secretId, ...(token && { NextToken: token }) }));
    const current = page.Versions?.find((version) => version.VersionStages?.includes(CURRENT));
    if (current) return current.VersionId!;
    token = page.NextToken;
  } while (token);
  return '';
}

/**
 * `resourceSecretVersionUpdate` (only `version_stages` can change in place): each added label moved onto this
 * version, AWSCURRENT with RemoveFromVersionId naming the version that has it, other labels without; each removed
 * label taken off, except AWSCURRENT (AWS refuses that) and AWSPREVIOUS once AWSCURRENT moved (AWS moved it).
 */
export async function updateVersionStages(sm: Sm, state: VersionState, stages: string[]): Promise<VersionState> {
  const [secretId, versionId] = parseVersionId(state.id);
  const added = stages.filter((stage) => !state.version_stages.includes(stage));
  const removed = state.version_stages.filter((stage) => !stages.includes(stage));
  let listedVersionIds = false;
  for (const stage of added) {
    const input = {
      MoveToVersionId: versionId,
      SecretId: secretId,
      VersionStage: stage,
      RemoveFromVersionId: undefined as string | undefined,
    };
    if (!listedVersionIds && stage === CURRENT) {
      input.RemoveFromVersionId = await currentVersionId(sm, secretId);
      listedVersionIds = true;
    }
    await sm.send(new UpdateSecretVersionStageCommand(input));
  }
  for (const stage of removed) {
    if (stage === CURRENT || (listedVersionIds && stage === PREVIOUS)) continue;
    await sm.send(new UpdateSecretVersionStageCommand({ RemoveFromVersionId: versionId, SecretId: secretId, VersionStage: stage }));
  }
  return (await readVersion(sm, state.id))!;
}

/**
 * `resourceSecretVersionDelete`: a version cannot be deleted, so the provider takes its labels off (all but
 * AWSCURRENT; a secret already gone or marked for deletion ends it), then waits until the version reads as gone, has
 * no label, or has only AWSCURRENT or only AWSPREVIOUS.
 */
export async function deleteVersion(sm: Sm, state: VersionState) {
  const [secretId, versionId] = parseVersionId(state.id);
  for (const stage of state.version_stages) {
    if (stage === CURRENT) continue;
    try {
      await sm.send(new UpdateSecretVersionStageCommand({ RemoveFromVersionId: versionId, SecretId: secretId, VersionStage: stage }));
    } catch (error) {
      if (
        isA(error, 'ResourceNotFoundException') ||
        isA(error, 'InvalidRequestException', 'because it was deleted') ||
        isA(error, 'InvalidRequestException', 'because it was marked for deletion')
      )
        return;
      throw error;
    }
  }
  await until(async () => {
    const output = await findSecretVersion(sm, { SecretId: secretId, VersionId: versionId });
    const left = output?.VersionStages ?? [];
    return !output || left.length === 0 || (left.length === 1 && (left[0] === CURRENT || left[0] === PREVIOUS));
  });
}
