import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { AwsSecretsManagerDestination } from '../sync-records.ts';
import { awsClient } from './aws-credentials.ts';
import { awsErrorCode, awsFailure } from './aws-failure.ts';
import { DestinationError } from './destination.ts';
import type { DestinationContext, PushedValue, SyncDestination } from './destination.ts';

/**
 * AWS Secrets Manager (decisions.md v1.4, "Syncs"), in another account through `roleArn` or the service's own AWS API
 * locally. `secret-per-key` (default): the secret `<namePrefix><KEY>` per key, its value the key's; created on
 * first write (under `kmsKeyId` when given), restored when a removal had scheduled its deletion. `json`: the one
 * secret `namePrefix` holds every key as one JSON object, so the worker hands every put the whole environment
 * (`wholeEnvironment`) and the object written is exactly those values; `remove` rewrites it without the keys.
 */

/** Deleted secrets stay recoverable for a week (AWS's shortest window): a prune by mistake can be undone. */
const RECOVERY_WINDOW_DAYS = 7;

type Client = SecretsManagerClient;

/** The secret name of a key in `secret-per-key` mode. */
export const secretName = (destination: Pick<AwsSecretsManagerDestination, 'namePrefix'>, key: string) => `${destination.namePrefix}${key}`;

/** The `json` mode's secret value: every key once, in key order, so an unchanged set writes the same text. */
export function jsonValue(values: readonly PushedValue[]): string {
  const entries = [...values].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ key, value }) => [key, value]);
  return JSON.stringify(Object.fromEntries(entries));
}

/** Makes the Secrets Manager destination of a sync. */
export function makeAwsSecretsManagerDestination(destination: AwsSecretsManagerDestination, context: DestinationContext): SyncDestination {
  const sm = awsClient('secretsmanager', (config) => new SecretsManagerClient(config), destination, context);
  const kmsKeyId = destination.kmsKeyId;
  if (destination.mode === 'json') {
    const name = destination.namePrefix;
    return {
      wholeEnvironment: true,
      put: (values) =>
        writeSecret(
          sm,
          name,
          jsonValue(values),
          kmsKeyId,
          values.map((v) => v.value),
        ),
      remove: (keys) => removeFromObject(sm, name, keys, kmsKeyId),
    };
  }
  return {
    wholeEnvironment: false,
    async put(values) {
      for (const { key, value } of values) await writeSecret(sm, secretName(destination, key), value, kmsKeyId, [value]);
    },
    async remove(keys) {
      for (const key of keys) await deleteSecret(sm, secretName(destination, key));
    },
  };
}

/** Writes a new current value: PutSecretValue, or CreateSecret when there is no such secret yet. */
async function writeSecret(sm: Client, name: string, value: string, kmsKeyId: string | undefined, values: readonly string[]) {
  const put = () => sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: value }));
  try {
    await put();
    return;
  } catch (error) {
    if (awsErrorCode(error) === 'ResourceNotFoundException') return createSecret(sm, name, value, kmsKeyId, values);
    if (!markedForDeletion(error)) throw awsFailure(`Secrets Manager PutSecretValue ${name}`, error, values);
  }
  // A key that left and came back: its secret waits out its recovery window, and is restored rather than left.
  await sm.send(new RestoreSecretCommand({ SecretId: name })).catch((error: unknown) => {
    throw awsFailure(`Secrets Manager RestoreSecret ${name}`, error);
  });
  await put().catch((error: unknown) => {
    throw awsFailure(`Secrets Manager PutSecretValue ${name}`, error, values);
  });
}

async function createSecret(sm: Client, name: string, value: string, kmsKeyId: string | undefined, values: readonly string[]) {
  const input = { Name: name, SecretString: value, ...(kmsKeyId !== undefined && { KmsKeyId: kmsKeyId }) };
  try {
    await sm.send(new CreateSecretCommand(input));
  } catch (error) {
    // Another push created it in between: it exists now, so this value goes on top of it.
    if (awsErrorCode(error) !== 'ResourceExistsException') throw awsFailure(`Secrets Manager CreateSecret ${name}`, error, values);
    await sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: value })).catch((again: unknown) => {
      throw awsFailure(`Secrets Manager PutSecretValue ${name}`, again, values);
    });
  }
}

/** Schedules the secret's deletion; one already gone or already scheduled is what remove wants. */
async function deleteSecret(sm: Client, name: string) {
  // ForceDeleteWithoutRecovery is left out (false): AWS refuses it beside RecoveryWindowInDays.
  const input = { SecretId: name, RecoveryWindowInDays: RECOVERY_WINDOW_DAYS };
  await sm.send(new DeleteSecretCommand(input)).catch((error: unknown) => {
    if (awsErrorCode(error) === 'ResourceNotFoundException' || markedForDeletion(error)) return;
    throw awsFailure(`Secrets Manager DeleteSecret ${name}`, error);
  });
}

/** The `json` secret without `keys`: read, drop them, write back (nothing to do when the secret is not there). */
async function removeFromObject(sm: Client, name: string, keys: readonly string[], kmsKeyId: string | undefined) {
  let text: string | undefined;
  try {
    text = (await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString;
  } catch (error) {
    if (awsErrorCode(error) === 'ResourceNotFoundException' || markedForDeletion(error)) return;
    throw awsFailure(`Secrets Manager GetSecretValue ${name}`, error);
  }
  const object = parseObject(text, name);
  const kept = Object.entries(object).filter(([key]) => !keys.includes(key));
  if (kept.length === Object.keys(object).length) return;
  const values = kept.map(([key, value]) => ({ key, value }));
  await writeSecret(
    sm,
    name,
    jsonValue(values),
    kmsKeyId,
    values.map((v) => v.value),
  );
}

function parseObject(text: string | undefined, name: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    parsed = undefined;
  }
  const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  if (!isObject || Object.values(parsed as object).some((value) => typeof value !== 'string')) {
    throw new DestinationError(`Secrets Manager ${name}: its value is not a JSON object of strings, which json mode writes`);
  }
  return parsed as Record<string, string>;
}

/** AWS's answer for a secret waiting out its recovery window (InvalidRequestException, "marked for deletion"). */
function markedForDeletion(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return awsErrorCode(error) === 'InvalidRequestException' && typeof message === 'string' && /deleted|deletion/i.test(message);
}
