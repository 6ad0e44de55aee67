import type { SealedValue } from '../platform/crypto/envelope.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { pick } from '../platform/store/items.ts';
import { ENTITY } from '../platform/store/keys.ts';
import { fromStored } from '../platform/store/sealed.ts';

/**
 * A secret as the secrets feature reads and writes it: its record (what lists show), its head with the sealed value,
 * its versions, how they are read from items, and the races a write can lose.
 */

/** A secret's state without its value: what lists and search show, plus where it lives. */
export interface SecretRecord {
  id: string;
  key: string;
  projectId: string;
  projectSlug: string;
  environmentId: string;
  envSlug: string;
  currentVersion: number;
  createdAt: string;
  updatedAt: string;
  /** The AWS API's description and tags of the secret (decisions.md v1.3); absent when it has none. */
  description?: string;
  tags?: Record<string, string>;
  /** When the description or tags last changed (`updatedAt` is when the current version was written). */
  changedAt?: string;
  /**
   * The VersionIds of the current and previous versions, by number, when an AWS write's `ClientRequestToken` named
   * them (any other version's is derived from the secret id and number: shared/secrets/secret-names.ts).
   */
  versionIds?: Record<string, string>;
  /** Every staging label by name, AWSCURRENT (always `currentVersion`) included: shared/secrets/secret-labels.ts. */
  labels?: Record<string, number>;
  /** The highest version number, pending ones included, when it is not `currentVersion`. */
  latestVersion?: number;
  /** Versions a rotation reserved under its token (labelled AWSPENDING) that have no value yet. */
  unfilled?: number[];
  /** Counts every change of the head and its copies: each write is conditional on the one it read. */
  revision?: number;
  /** `base64` when the current version's value is binary (the AWS API's SecretBinary), kept as its base64 text. */
  encoding?: ValueEncoding;
  /**
   * The distinct targets (by path) of the current value's references, written with it (decisions.md v1.4, "Secret
   * references"); absent when it has none. It is also the marker a reveal resolves by: a value without it (a plain
   * one, or one written before v1.4 that happens to hold `${`) is answered as written.
   */
  references?: string[];
}

/** How a value is kept: binary values (SecretBinary) as their base64 text; a string value has no encoding. */
export type ValueEncoding = 'base64';

/**
 * The head of a secret: its record and the sealed value of its current version, none for a secret created without
 * a value (decisions.md v1.4: `currentVersion` 0, no version, no labels).
 */
export interface StoredSecret extends SecretRecord {
  sealed: SealedValue | undefined;
}

/** Whether the secret has a value yet (one created without a value has version 0 and none). */
export const hasValue = (secret: Pick<SecretRecord, 'currentVersion'>) => secret.currentVersion > 0;

/** A secret created without a value, read for its value: NOT_FOUND, as for a version that does not exist. */
export class NoValueError extends NotFoundError {}

export interface StoredVersion {
  version: number;
  sealed: SealedValue;
  createdAt: string;
  createdBy: string;
  /** The version whose value this one restored (a rollback), or null. */
  rolledBackFrom: number | null;
  /** The `ClientRequestToken` of the AWS write that made it, or null (its VersionId is then derived). */
  versionId: string | null;
  /** `base64` for a binary value. */
  encoding?: ValueEncoding;
  /** The distinct targets of its references, when it has any (as the head's `references`). */
  references?: string[];
}

/** A version as the history lists it: never its value. */
export type VersionRecord = Omit<StoredVersion, 'sealed'>;

export const toVersionRecord = (item: Record<string, unknown>): VersionRecord => ({
  version: item.version as number,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  rolledBackFrom: (item.rolledBackFrom as number | undefined) ?? null,
  versionId: (item.versionId as string | undefined) ?? null,
  ...(item.encoding === 'base64' && { encoding: 'base64' as const }),
  ...(Array.isArray(item.references) && item.references.length > 0 && { references: item.references as string[] }),
});

/**
 * The condition of a head, path or key item failed: another write or a delete got there first. `found` is the key
 * as the failed write found it, when the transaction could tell, so a retry need not read it.
 */
export class VersionConflictError extends Error {
  readonly found: { current: SecretRecord | undefined } | undefined;
  constructor(found?: { current: SecretRecord | undefined }) {
    super();
    this.found = found;
  }
}

/** A write that must create its key (`If-Match: 0`, the AWS API's CreateSecret) found the key taken. */
export class SecretExistsError extends ConflictError {}

/** A write's VersionId (an AWS `ClientRequestToken`) already names a version of the secret with another value. */
export class VersionIdExistsError extends ConflictError {}

/** A create (the AWS API's CreateSecret) of a name whose deleted secret is still in its recovery window. */
export class InRecoveryWindowError extends ConflictError {}

/** The write's VersionId (an AWS `ClientRequestToken`) already names a version of the secret. */
export class VersionIdTakenError extends Error {}

/** The fields every secret's record has. */
export const RECORD_FIELDS: readonly (keyof SecretRecord)[] = [
  'id',
  'key',
  'projectId',
  'projectSlug',
  'environmentId',
  'envSlug',
  'currentVersion',
  'createdAt',
  'updatedAt',
];

/** The head's fields that only some secrets have: copied when present, never written as null. */
const OPTIONAL_FIELDS = [
  'description',
  'tags',
  'changedAt',
  'versionIds',
  'labels',
  'latestVersion',
  'unfilled',
  'revision',
  'encoding',
  'references',
] as const;

/**
 * What a delete leaves at a secret's head and path (secret-delete-items.ts): its deleted record and a path marker.
 * Neither is a secret: every read by id or path, and every batch read of heads, sees it as none.
 */
const TOMBSTONES: readonly unknown[] = [ENTITY.secretPurge, ENTITY.deletedSecretPath];

export const toRecord = (item: Record<string, unknown> | undefined): SecretRecord | undefined => {
  if (item && TOMBSTONES.includes(item.type)) return undefined;
  const record = pick<SecretRecord>(item, RECORD_FIELDS);
  if (!record) return undefined;
  for (const field of OPTIONAL_FIELDS)
    if (item![field] !== undefined && item![field] !== null) Object.assign(record, { [field]: item![field] });
  return record;
};
export const toSecret = (item: Record<string, unknown> | undefined): StoredSecret | undefined => {
  const record = toRecord(item);
  return record && { ...record, sealed: item!.sealed === undefined ? undefined : fromStored(item!.sealed as Record<string, unknown>) };
};

/** The path of a secret: `<projectSlug>/<envSlug>/<key>`. */
export const secretPath = (record: Pick<SecretRecord, 'projectSlug' | 'envSlug' | 'key'>) =>
  `${record.projectSlug}/${record.envSlug}/${record.key}`;

/** A deleted secret in its recovery window: its record as it was, who deleted it, when, and until when it may come back. */
export interface DeletedSecret extends SecretRecord {
  deletedAt: string;
  deletedBy: string;
  purgeAt: string;
}

/**
 * A deleted secret from its deleted record (the head as it was, less its value: deleted-secret-store.ts), whole
 * (description, tags and VersionIds too); undefined unless it is one and still before its `purgeAt` (past it, a
 * secret is gone for every read, whether or not the sweeper has got to it).
 */
export function deletedOf(item: Record<string, unknown> | undefined, now: number): DeletedSecret | undefined {
  const head = item?.head as Record<string, unknown> | undefined;
  if (!item || !head || typeof item.purgeAt !== 'string' || Date.parse(item.purgeAt) <= now) return undefined;
  const record = toRecord(head);
  if (!record) return undefined;
  const deletion = pick<Pick<DeletedSecret, 'deletedAt' | 'deletedBy' | 'purgeAt'>>(item, ['deletedAt', 'deletedBy', 'purgeAt'])!;
  return { ...record, ...deletion };
}

/**
 * The condition that a head item (or one of its copies) is still as `read` found it: its revision; for items
 * written before revisions, its current version and when its description or tags last changed.
 */
export function unchangedSince(read: SecretRecord) {
  if (read.revision !== undefined)
    return {
      ConditionExpression: '#revision = :revision',
      ExpressionAttributeNames: { '#revision': 'revision' },
      ExpressionAttributeValues: { ':revision': read.revision } as Record<string, unknown>,
    };
  return {
    ConditionExpression: `attribute_not_exists(#revision) AND currentVersion = :previous AND ${read.changedAt === undefined ? 'attribute_not_exists(changedAt)' : 'changedAt = :changedAt'}`,
    ExpressionAttributeNames: { '#revision': 'revision' },
    ExpressionAttributeValues: {
      ':previous': read.currentVersion,
      ...(read.changedAt !== undefined && { ':changedAt': read.changedAt }),
    } as Record<string, unknown>,
  };
}

/** The revision a change of the head read as `read` writes. */
export const revisionAfter = (read: SecretRecord | undefined) => (read?.revision ?? 0) + 1;
