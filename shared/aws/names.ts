import { NotFoundError } from '../platform/errors.ts';
import { arnSuffix, type AwsPlace } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';

/**
 * A secret's names in the AWS API (decisions.md, "The AWS Secrets Manager API"): its `Name` is its path
 * `<projectSlug>/<envSlug>/<KEY>`, and a `SecretId` is the name, the ARN, or the ARN without its suffix. The ARN and
 * the VersionIds are the secrets feature's (shared/secrets/secret-names.ts: REST answers them too).
 */

/** What a `SecretId` names: a secret's name, and when it was a whole ARN, the suffix the secret must have. */
export interface SecretReference {
  name: string;
  suffix?: string | undefined;
}

/**
 * Reads a `SecretId`: the references it may be, to try in order. An ARN ending in `-` and six letters and digits is
 * first read as a whole ARN (its name, and the suffix the secret must have), then as an ARN without its suffix whose
 * key happens to end so, as AWS reads it. An ARN of another region, account or service names nothing here (an empty
 * list: ResourceNotFoundException, as AWS answers for a secret it does not have).
 */
export function parseSecretId(secretId: string, place: AwsPlace): SecretReference[] {
  const prefix = `arn:aws:secretsmanager:${place.region}:${place.account}:secret:`;
  if (!secretId.startsWith('arn:')) return [{ name: secretId }];
  if (!secretId.startsWith(prefix)) return [];
  const rest = secretId.slice(prefix.length);
  const whole = /^(.+)-([A-Za-z0-9]{6})$/.exec(rest);
  return whole ? [{ name: whole[1]!, suffix: whole[2] }, { name: rest }] : [{ name: rest }];
}

/** Whether a secret is the one a reference names (a whole ARN's suffix must be the secret's own). */
export const matchesReference = (reference: SecretReference, secretId: string) =>
  reference.suffix === undefined || reference.suffix === arnSuffix(secretId);

/** The path a `Name` of a new secret gives (`<projectSlug>/<envSlug>/<KEY>`), or undefined when it is not one. */
export function pathOfName(name: string): { projectSlug: string; envSlug: string; key: string } | undefined {
  const match = /^([a-z0-9]+(?:-[a-z0-9]+)*)\/([a-z0-9]+(?:-[a-z0-9]+)*)\/(.+)$/.exec(name);
  return match ? { projectSlug: match[1]!, envSlug: match[2]!, key: match[3]! } : undefined;
}

/** Epoch seconds with milliseconds, as AWS's JSON protocol writes a timestamp. */
export const epochSeconds = (iso: string) => Date.parse(iso) / 1000;

/** LastChangedDate: the later of the current version's write and the last change of description or tags. */
export const lastChanged = (secret: { updatedAt: string; changedAt?: string | undefined }) =>
  epochSeconds(secret.changedAt !== undefined && secret.changedAt > secret.updatedAt ? secret.changedAt : secret.updatedAt);

export const NOT_FOUND_MESSAGE = "Secrets Manager can't find the specified secret.";

/** Tries each reference a SecretId may be (names.ts) in order; the first that names a secret answers. */
export async function firstFound<T>(
  references: readonly SecretReference[],
  attempt: (reference: SecretReference) => Promise<T>,
): Promise<T> {
  for (const reference of references) {
    try {
      return await attempt(reference);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  throw new AwsError('ResourceNotFoundException', NOT_FOUND_MESSAGE);
}

/**
 * A revealed value as AWS answers it: SecretBinary (AWS's JSON protocol carries a blob as base64, which is how a
 * binary value is kept) for a value with `encoding: 'base64'`, SecretString otherwise (decisions.md v1.4).
 */
export const valueField = (revealed: { value: string; encoding?: 'base64' | undefined }) =>
  revealed.encoding === 'base64' ? { SecretBinary: revealed.value } : { SecretString: revealed.value };
