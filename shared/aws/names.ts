import { createHash } from 'node:crypto';

/**
 * A secret's names in the AWS API (decisions.md, "The AWS Secrets Manager API"): its `Name` is its path
 * `<projectSlug>/<envSlug>/<KEY>`; its `ARN` is `arn:aws:secretsmanager:<region>:<account>:secret:<Name>-<suffix>`,
 * the suffix six letters and digits fixed for the secret (derived from its id, so nothing is stored); a `SecretId`
 * is the name, the ARN, or the ARN without its suffix. Its versions' `VersionId`s: the `ClientRequestToken` of an AWS
 * write that made one, else a UUID derived from the secret id and the version's number (so versions written before
 * the AWS API existed have one, and nothing is migrated).
 */

/** Where the service answers: the stack's region and account (locally `us-east-1` and `000000000000`). */
export interface AwsPlace {
  region: string;
  account: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The six letters and digits at the end of a secret's ARN, fixed for the secret. */
export function arnSuffix(secretId: string): string {
  const digest = createHash('sha256').update(`arn-suffix:${secretId}`).digest();
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHANUMERIC[digest[i]! % ALPHANUMERIC.length];
  return suffix;
}

export const secretName = (secret: { projectSlug: string; envSlug: string; key: string }) =>
  `${secret.projectSlug}/${secret.envSlug}/${secret.key}`;

/** The path the services name a secret by: its `Name`. */
export const secretPath = secretName;

export function secretArn(place: AwsPlace, secret: { id: string; projectSlug: string; envSlug: string; key: string }): string {
  return `arn:aws:secretsmanager:${place.region}:${place.account}:secret:${secretName(secret)}-${arnSuffix(secret.id)}`;
}

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

/** The 12 hex digits at a derived VersionId's end hold the version's number; the rest is a digest of both. */
export function derivedVersionId(secretId: string, version: number): string {
  const h = createHash('sha256').update(`version-id:${secretId}:${version}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${version.toString(16).padStart(12, '0')}`;
}

/** The version a derived VersionId names for this secret, or undefined when it is not one of its derived ids. */
export function versionOfDerivedId(secretId: string, versionId: string): number | undefined {
  const match = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-([0-9a-f]{12})$/.exec(versionId);
  if (!match) return undefined;
  const version = Number.parseInt(match[1]!, 16);
  return version >= 1 && derivedVersionId(secretId, version) === versionId ? version : undefined;
}

/** The VersionId of a version of the secret: the one its write named (kept on the head for labelled ones), else derived. */
export const versionIdOf = (secret: { id: string; versionIds?: Record<string, string> | undefined }, version: number) =>
  secret.versionIds?.[String(version)] ?? derivedVersionId(secret.id, version);

/** The VersionIds of the labelled versions and their labels, as DescribeSecret and ListSecrets answer them. */
export function versionIdsToStages(secret: { id: string; currentVersion: number; versionIds?: Record<string, string> | undefined }) {
  const stages: Record<string, string[]> = { [versionIdOf(secret, secret.currentVersion)]: ['AWSCURRENT'] };
  if (secret.currentVersion > 1) stages[versionIdOf(secret, secret.currentVersion - 1)] = ['AWSPREVIOUS'];
  return stages;
}

/** The path a `Name` of a new secret gives (`<projectSlug>/<envSlug>/<KEY>`), or undefined when it is not one. */
export function pathOfName(name: string): { projectSlug: string; envSlug: string; key: string } | undefined {
  const match = /^([a-z0-9]+(?:-[a-z0-9]+)*)\/([a-z0-9]+(?:-[a-z0-9]+)*)\/(.+)$/.exec(name);
  return match ? { projectSlug: match[1]!, envSlug: match[2]!, key: match[3]! } : undefined;
}

/** The staging labels of a version: AWSCURRENT on the current one, AWSPREVIOUS on the one before it. */
export function stagesOf(version: number, currentVersion: number): string[] {
  if (version === currentVersion) return ['AWSCURRENT'];
  if (version === currentVersion - 1) return ['AWSPREVIOUS'];
  return [];
}

/** Epoch seconds with milliseconds, as AWS's JSON protocol writes a timestamp. */
export const epochSeconds = (iso: string) => Date.parse(iso) / 1000;

/** LastChangedDate: the later of the current version's write and the last change of description or tags. */
export const lastChanged = (secret: { updatedAt: string; changedAt?: string | undefined }) =>
  epochSeconds(secret.changedAt !== undefined && secret.changedAt > secret.updatedAt ? secret.changedAt : secret.updatedAt);
