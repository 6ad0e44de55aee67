import { randomUUID } from 'node:crypto';
import {
  BatchGetSecretValueCommand,
  CreateSecretCommand,
  DeleteResourcePolicyCommand,
  DeleteSecretCommand,
  type DescribeSecretCommandOutput,
  DescribeSecretCommand,
  type Filter,
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  ListSecretsCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-secrets-manager';

/**
 * The calls External Secrets Operator's AWS Secrets Manager provider makes, replayed call for call through the AWS SDK
 * for JavaScript from external-secrets/external-secrets, providers/v1/aws/secretsmanager/secretsmanager.go (see
 * external-secrets-replay.test.ts for the version): an ExternalSecret's reads (`GetSecret`, `GetAllSecrets`), a
 * PushSecret's writes (`PushSecret`, `DeleteSecret`, `SecretExists`). aws-sdk-go-v2 sends a non-nil slice even when
 * empty (`Filters: []`) and leaves nil pointers out, as here.
 */

type Sm = SecretsManagerClient;
type Tags = Record<string, string>;

const MANAGED_BY = 'managed-by';
const EXTERNAL_SECRETS = 'external-secrets';
/** The ClientRequestToken of a PushSecret's first version. */
export const INITIAL_VERSION = '00000000-0000-0000-0000-000000000001';

/** `esv1.NoSecretErr`: what the controller treats as "the secret does not exist". */
export class NoSecretError extends Error {}

const isA = (error: unknown, name: string, contains = '') =>
  error instanceof Error && error.name === name && error.message.includes(contains);

/** `retrievePayload`: SecretString, or SecretBinary's bytes when there is one. */
const payloadOf = (out: Pick<GetSecretValueCommandOutput, 'SecretString' | 'SecretBinary'>) =>
  out.SecretBinary ? Buffer.from(out.SecretBinary) : out.SecretString !== undefined ? Buffer.from(out.SecretString) : undefined;

/**
 * `constructSecretValue`: a remoteRef's `version` of `uuid/<id>` is a VersionId, any other a VersionStage
 * (AWSCURRENT when none is given, sent as such); not found is NoSecretErr.
 */
async function fetchValue(sm: Sm, key: string, version = 'AWSCURRENT') {
  const input = version.startsWith('uuid/')
    ? { SecretId: key, VersionId: version.slice('uuid/'.length) }
    : { SecretId: key, VersionStage: version };
  try {
    return await sm.send(new GetSecretValueCommand(input));
  } catch (error) {
    // ESO looks for "was marked for deletion" in an InvalidParameterException; AWS answers InvalidRequestException.
    if (isA(error, 'ResourceNotFoundException') || isA(error, 'InvalidParameterException', 'was marked for deletion'))
      throw new NoSecretError(`${key} not found`);
    throw error;
  }
}

/** `GetSecret`: an ExternalSecret's `data[].remoteRef` (`key`, `version`, `property`, `metadataPolicy: Fetch`). */
export async function getSecret(sm: Sm, ref: { key: string; version?: string; property?: string; metadataPolicy?: 'Fetch' }) {
  let payload: Buffer | undefined;
  if (ref.metadataPolicy === 'Fetch') {
    const described = await sm.send(new DescribeSecretCommand({ SecretId: ref.key }));
    payload = Buffer.from(JSON.stringify(Object.fromEntries((described.Tags ?? []).map((tag) => [tag.Key, tag.Value]))));
  } else {
    payload = payloadOf(await fetchValue(sm, ref.key, ref.version || undefined));
  }
  if (!payload) throw new Error(`invalid secret received. no secret string nor binary for key: ${ref.key}`);
  if (ref.property === undefined) return payload;
  const value = (JSON.parse(payload.toString()) as Record<string, unknown>)[ref.property];
  if (value === undefined) throw new Error(`key ${ref.property} does not exist in secret ${ref.key}`);
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
}

/** `fetchWithBatch`: BatchGetSecretValue by Filters, every page; its `Errors` are not looked at. */
async function fetchWithBatch(sm: Sm, filters: Filter[], matcher?: RegExp) {
  const data: Record<string, Buffer> = {};
  let token: string | undefined;
  do {
    const page = await sm.send(new BatchGetSecretValueCommand({ Filters: filters, ...(token && { NextToken: token }) }));
    for (const secret of page.SecretValues ?? []) {
      if (matcher && !matcher.test(secret.Name!)) continue;
      data[secret.Name!] = payloadOf(secret)!;
    }
    token = page.NextToken;
  } while (token);
  return data;
}

/** `findByName` without a path: ListSecrets (Filters as given, maybe `[]`), every page, then GetSecret of each match. */
async function listAndFetch(sm: Sm, filters: Filter[], matcher: RegExp) {
  const data: Record<string, Buffer> = {};
  let token: string | undefined;
  do {
    const page = await sm.send(new ListSecretsCommand({ Filters: filters, ...(token && { NextToken: token }) }));
    for (const secret of page.SecretList ?? []) {
      if (matcher.test(secret.Name!)) data[secret.Name!] = payloadOf(await fetchValue(sm, secret.Name!))!;
    }
    token = page.NextToken;
  } while (token);
  return data;
}

/**
 * `GetAllSecrets`: an ExternalSecret's `dataFrom[].find`. Tags are `tag-key` and `tag-value` filters; a `path` is a
 * `name` filter and BatchGetSecretValue; a name regexp without a path lists every secret and reads the matches one
 * by one; tags without a name go through BatchGetSecretValue.
 */
export async function getAllSecrets(sm: Sm, find: { name?: string; tags?: Tags; path?: string }) {
  const filters: Filter[] = Object.entries(find.tags ?? {}).flatMap(([key, value]): Filter[] => [
    { Key: 'tag-key', Values: [key] },
    { Key: 'tag-value', Values: [value] },
  ]);
  if (find.path !== undefined) filters.push({ Key: 'name', Values: [find.path] });
  if (find.name === undefined && find.tags === undefined) throw new Error('unexpected find operator');
  const matcher = find.name === undefined ? undefined : new RegExp(find.name);
  if (!matcher || find.path !== undefined) return fetchWithBatch(sm, filters, matcher);
  return listAndFetch(sm, filters, matcher);
}

/** A PushSecret's `data[].metadata.spec` (PushSecretMetadata). */
export interface PushMetadata {
  secretPushFormat?: 'binary' | 'string';
  description?: string;
  kmsKeyID?: string;
  tags?: Tags;
}

/** `constructMetadataWithDefaults`: binary, a description, AWS's default key, and the `managed-by` tag. */
function withDefaults(metadata: PushMetadata = {}) {
  return {
    format: metadata.secretPushFormat ?? 'binary',
    description: metadata.description || `secret '${MANAGED_BY}:${EXTERNAL_SECRETS}'`,
    kmsKeyId: metadata.kmsKeyID || 'alias/aws/secretsmanager',
    tags: { ...metadata.tags, [MANAGED_BY]: EXTERNAL_SECRETS },
  };
}

const valueField = (format: string, value: Buffer) => (format === 'string' ? { SecretString: value.toString() } : { SecretBinary: value });
const isManagedByEso = (described: DescribeSecretCommandOutput) =>
  (described.Tags ?? []).some((tag) => tag.Key === MANAGED_BY && tag.Value === EXTERNAL_SECRETS);

/** `patchTags` (only when the metadata names tags), then `manageResourcePolicy` (none given: DeleteResourcePolicy). */
async function patchTagsAndPolicy(sm: Sm, name: string, described: DescribeSecretCommandOutput, metadata: PushMetadata | undefined) {
  if (metadata?.tags && Object.keys(metadata.tags).length > 0) {
    const wanted = withDefaults(metadata).tags;
    const current = Object.fromEntries((described.Tags ?? []).map((tag) => [tag.Key!, tag.Value!]));
    const removed = Object.keys(current).filter((key) => !(key in wanted));
    if (removed.length > 0) await sm.send(new UntagResourceCommand({ SecretId: name, TagKeys: removed }));
    const modified = Object.entries(wanted).some(([key, value]) => current[key] !== value && key !== MANAGED_BY);
    if (modified)
      await sm.send(new TagResourceCommand({ SecretId: name, Tags: Object.entries(wanted).map(([Key, Value]) => ({ Key, Value })) }));
  }
  try {
    await sm.send(new DeleteResourcePolicyCommand({ SecretId: name }));
  } catch (error) {
    if (!isA(error, 'ResourceNotFoundException')) throw error;
  }
}

/**
 * `PushSecret` of one key's value (no `property`): DescribeSecret; not found → CreateSecret with the first version's
 * token; not tagged `managed-by=external-secrets` → refused; otherwise tags and policy patched, the current value read
 * and, when it differs, PutSecretValue with a new UUID (or the first version's token when the secret has no version).
 */
export async function pushSecret(sm: Sm, name: string, value: Buffer, metadata?: PushMetadata, newUUID: () => string = randomUUID) {
  let described: DescribeSecretCommandOutput;
  try {
    described = await sm.send(new DescribeSecretCommand({ SecretId: name }));
  } catch (error) {
    if (!isA(error, 'ResourceNotFoundException')) throw error;
    const meta = withDefaults(metadata);
    await sm.send(
      new CreateSecretCommand({
        Name: name,
        ...valueField(meta.format, value),
        Tags: Object.entries(meta.tags).map(([Key, Value]) => ({ Key, Value })),
        Description: meta.description,
        ClientRequestToken: INITIAL_VERSION,
        KmsKeyId: meta.kmsKeyId,
      }),
    );
    return;
  }
  if (!isManagedByEso(described)) throw new Error('secret not managed by external-secrets');
  const hasVersion = Object.keys(described.VersionIdsToStages ?? {}).length > 0;
  const current = hasVersion ? await sm.send(new GetSecretValueCommand({ SecretId: name })) : undefined;
  await patchTagsAndPolicy(sm, name, described, metadata);
  if (current && (payloadOf(current)?.equals(value) ?? false)) return;
  const format = withDefaults(metadata).format;
  await sm.send(
    new PutSecretValueCommand({ SecretId: name, ...valueField(format, value), ClientRequestToken: current ? newUUID() : INITIAL_VERSION }),
  );
}

/** `SecretExists`: GetSecretValue; ResourceNotFoundException is false. */
export async function secretExists(sm: Sm, name: string) {
  try {
    await sm.send(new GetSecretValueCommand({ SecretId: name }));
    return true;
  } catch (error) {
    if (isA(error, 'ResourceNotFoundException')) return false;
    throw error;
  }
}

/**
 * `DeleteSecret` (a PushSecret with `deletionPolicy: Delete`): GetSecretValue (not found: nothing to do),
 * DescribeSecret (not ESO's: left alone), then DeleteSecret by the ARN with the SecretStore's
 * `forceDeleteWithoutRecovery` or `recoveryWindowInDays` (neither: AWS's 30 days).
 */
export async function deletePushed(
  sm: Sm,
  name: string,
  store: { forceDeleteWithoutRecovery?: boolean; recoveryWindowInDays?: number } = {},
) {
  let arn: string;
  try {
    arn = (await sm.send(new GetSecretValueCommand({ SecretId: name }))).ARN!;
  } catch (error) {
    if (isA(error, 'ResourceNotFoundException')) return 'absent';
    throw error;
  }
  if (!isManagedByEso(await sm.send(new DescribeSecretCommand({ SecretId: name })))) return 'not managed';
  await sm.send(
    new DeleteSecretCommand({
      SecretId: arn,
      ...(store.forceDeleteWithoutRecovery && { ForceDeleteWithoutRecovery: true }),
      ...(store.recoveryWindowInDays && { RecoveryWindowInDays: store.recoveryWindowInDays }),
    }),
  );
  return 'deleted';
}
