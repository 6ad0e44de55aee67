import { type AuditEntry, auditPut } from '../audit/index.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import { ENTITY, gsi1, gsi4, keys } from '../platform/store/keys.ts';
import { toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import type { SealedValue } from '../platform/crypto/envelope.ts';
import { secretPath, unchangedSince, type SecretRecord, type StoredSecret, type ValueEncoding } from './secret-record.ts';

/**
 * One version write as transaction items, built but not sent: what `writeSecretVersion` commits on its own, and what
 * a change request's merge commits with the other keys' writes in one transaction (shared/change-requests/). Both
 * build the same items here, so a merged version is stored exactly as any other write stores it.
 */

/** The immutable item of a version a write makes (`null` for a change of labels alone). */
export interface NewVersion {
  /** Its number; default the new head's `currentVersion`. */
  number?: number;
  /** Its sealed value; default the new head's (the current one's). */
  sealed?: SealedValue;
  createdAt?: string;
  createdBy: string;
  rolledBackFrom?: number | undefined;
  versionId?: string | undefined;
  /** False when its VersionId was claimed before (a rotation's reserved version being filled). */
  claim?: boolean;
  /** `base64` for a binary value; default the new head's encoding. */
  encoding?: ValueEncoding | undefined;
  /** The distinct targets of its value's references (none: no attribute, so a plain version's item is unchanged). */
  references?: readonly string[] | undefined;
}

/**
 * What a secret's current state is stored as: the head (under its id and its path), the environment's key item (in
 * the search indexes) and the sealed value. A write puts them; a restore puts them back.
 */
export function secretItems(workspaceId: string, secret: StoredSecret) {
  const { sealed, ...record } = secret;
  const stored = sealed === undefined ? undefined : toStored(sealed);
  const listed = {
    ...record,
    workspaceId,
    keyLower: record.key.toLowerCase(),
    ...gsi1.workspaceSecret(workspaceId, record.id),
    ...gsi4.environmentSecret(workspaceId, record.environmentId, record.id),
  };
  return { stored, head: { ...record, workspaceId, ...(stored && { sealed: stored }) }, listed, path: secretPath(record) };
}

/** What a version write is told (`writeSecretVersion`'s arguments, and `secretVersionItems`'s after the table). */
export type VersionWrite = [
  workspaceId: string,
  secret: StoredSecret,
  /** The key as the writer read it; `undefined` for a create. */
  expected: SecretRecord | undefined,
  version: NewVersion | null,
  audit: AuditEntry | undefined,
  /** A VersionId to claim without a version item (a rotation reserving its token). */
  reserve?: { versionId: string; number: number },
];

/** A version write's items, and where its conditional ones are (the key item's failed condition names the race). */
export interface VersionWriteItems {
  items: TransactItem[];
  /** The key item (environment secret): its condition holds only while the key is as the write read it. */
  keyItemAt: number;
  versionAt: number | undefined;
  claimAt: number | undefined;
}

/**
 * The transaction items of a secret's new state (secret-store.ts, `writeSecretVersion`): the head under its id and
 * its path (which environment loads read), the environment's key item, the new version's immutable item (if any),
 * the audit entry, and the claim of the version's VersionId: 4 items and the audit entry for a new version. A create
 * may take a path a deleted secret's marker holds; with `pathFreeAt` (epoch seconds: the AWS API's CreateSecret) only
 * once that secret's recovery window has ended. A create needs the path and
 * key free; any other write holds only while the key is as `expected` was read.
 */
export function secretVersionItems(
  db: Db,
  ...[workspaceId, secret, expected, version, audit, reserve, pathFreeAt]: [...VersionWrite, pathFreeAt?: number]
): VersionWriteItems {
  const { sealed, ...record } = secret;
  const { head, listed, path } = secretItems(workspaceId, secret);
  const write = (key: { PK: string; SK: string }, type: string, item: Record<string, unknown>) =>
    expected === undefined
      ? { Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ConditionExpression: 'attribute_not_exists(PK)' } }
      : { Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ...unchangedSince(expected) } };
  const pathItem = write(keys.secretPath(workspaceId, path), ENTITY.secretPath, head);
  if (expected === undefined) Object.assign(pathItem.Put, takesPath(pathFreeAt));
  const keyItem = write(keys.environmentSecret(workspaceId, record.environmentId, record.key), ENTITY.environmentSecret, listed);
  // A lost race learns the key's current state from its failed condition (no read, nothing billed); when the
  // key is gone (no item) the writer reads again.
  Object.assign(keyItem.Put, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
  const number = version?.number ?? record.currentVersion;
  const versionSealed = version?.sealed ?? sealed;
  if (version && !versionSealed) throw new Error('a version needs its sealed value');
  const encoding = version?.sealed ? version.encoding : record.encoding;
  const versionItem = version && {
    Put: {
      TableName: db.tableName,
      Item: {
        ...keys.secretVersion(workspaceId, record.id, number),
        type: ENTITY.secretVersion,
        secretId: record.id,
        version: number,
        sealed: toStored(versionSealed!),
        createdAt: version.createdAt ?? record.updatedAt,
        createdBy: version.createdBy,
        ...(version.rolledBackFrom !== undefined && { rolledBackFrom: version.rolledBackFrom }),
        ...(version.versionId !== undefined && { versionId: version.versionId }),
        ...(encoding && { encoding }),
        ...(version.references?.length && { references: [...version.references] }),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
  // A VersionId named by the write is claimed with it: a retry with the same token fails here.
  const claim = version
    ? version.versionId !== undefined && version.claim !== false
      ? { versionId: version.versionId, number }
      : undefined
    : reserve;
  const items: TransactItem[] = [
    write(keys.secretHead(workspaceId, record.id), ENTITY.secretHead, head),
    pathItem,
    keyItem,
    ...(versionItem ? [versionItem] : []),
    ...(audit ? [auditPut(db, workspaceId, audit)] : []),
  ];
  if (claim)
    items.push({
      Put: {
        TableName: db.tableName,
        Item: { ...keys.secretVersionId(workspaceId, record.id, claim.versionId), type: ENTITY.secretVersionId, version: claim.number },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    });
  return { items, keyItemAt: 2, versionAt: versionItem ? 3 : undefined, claimAt: claim ? items.length - 1 : undefined };
}

/**
 * The condition of a create's path item: free, or a deleted secret's marker (secret-delete-items.ts), whose window
 * (its TTL) must have ended by `freeAt` when given. It answers the item it found when it fails, so the writer tells a
 * path in its recovery window from a live secret's.
 */
function takesPath(freeAt: number | undefined) {
  return {
    ConditionExpression: `attribute_not_exists(PK) OR (#type = :marker${freeAt === undefined ? '' : ' AND #ttl <= :freeAt'})`,
    ExpressionAttributeNames: { '#type': 'type', ...(freeAt !== undefined && { '#ttl': 'ttl' }) },
    ExpressionAttributeValues: { ':marker': ENTITY.deletedSecretPath, ...(freeAt !== undefined && { ':freeAt': freeAt }) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
