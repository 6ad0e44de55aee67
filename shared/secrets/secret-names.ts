import { createHash } from 'node:crypto';
import { secretPath } from './secret-record.ts';
import { stagesByVersion, type Labelled } from './secret-labels.ts';

/**
 * What the AWS API and REST both call a secret and its versions (decisions.md, "Names" and "Versions"): its ARN,
 * `arn:aws:secretsmanager:<region>:<account>:secret:<Name>-<suffix>`, the suffix six letters and digits fixed for the
 * secret (derived from its id, so nothing is stored); each version's `VersionId` (the `ClientRequestToken` of the AWS
 * write that made it, else a UUID derived from the secret id and the version's number, so versions written before the
 * AWS API existed have one and nothing is migrated) and its staging labels.
 */

/** Where the service answers: the stack's region and account (locally `us-east-1` and `000000000000`). */
export interface AwsPlace {
  region: string;
  account: string;
}

/** The local stack's place (decisions.md: locally `us-east-1` and account `000000000000`). */
export const LOCAL_PLACE: AwsPlace = { region: 'us-east-1', account: '000000000000' };

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The six letters and digits at the end of a secret's ARN, fixed for the secret. */
export function arnSuffix(secretId: string): string {
  const digest = createHash('sha256').update(`arn-suffix:${secretId}`).digest();
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHANUMERIC[digest[i]! % ALPHANUMERIC.length];
  return suffix;
}

export function secretArn(place: AwsPlace, secret: { id: string; projectSlug: string; envSlug: string; key: string }): string {
  return `arn:aws:secretsmanager:${place.region}:${place.account}:secret:${secretPath(secret)}-${arnSuffix(secret.id)}`;
}

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
export function versionIdsToStages(secret: Labelled & { id: string; versionIds?: Record<string, string> | undefined }) {
  const stages: Record<string, string[]> = {};
  for (const [version, labels] of stagesByVersion(secret)) stages[versionIdOf(secret, version)] = labels;
  return stages;
}

/**
 * The version a VersionId names in the secret: one the head keeps (labelled versions), one derived from the secret's
 * id (unless a write's token replaced it there), or one a write's token stored (`stored` reads its `VID#` item).
 */
export async function versionOfVersionId(
  secret: { id: string; versionIds?: Record<string, string> | undefined },
  versionId: string,
  stored: (versionId: string) => Promise<number | undefined>,
): Promise<number | undefined> {
  const kept = Object.entries(secret.versionIds ?? {}).find(([, id]) => id === versionId)?.[0];
  if (kept !== undefined) return Number(kept);
  const derived = versionOfDerivedId(secret.id, versionId);
  if (derived !== undefined) return versionIdOf(secret, derived) === versionId ? derived : undefined;
  return stored(versionId);
}
