import type { AuditEntry } from '../audit/index.ts';
import type { ItemKey } from '../platform/prefetch.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import { pick } from '../platform/store/items.ts';
import { ENTITY, gsi1, gsi2, keys } from '../platform/store/keys.ts';
import type { Db } from '../platform/store/send.ts';
import { RECORD_FIELDS, unchangedSince, type DeletedSecret, type SecretRecord, type StoredSecret } from './secret-record.ts';
import { secretItems } from './secret-version-items.ts';

/** The fields of a deleted secret's list item (deleted-secret-store.ts reads them back). */
export const DELETED_FIELDS: readonly (keyof DeletedSecret)[] = [...RECORD_FIELDS, 'deletedAt', 'deletedBy', 'purgeAt'];

export const epochSeconds = (at: string) => Math.ceil(Date.parse(at) / 1000);

/**
 * A recoverable delete as transaction items, built but not sent (deleted-secret-store.ts, `deleteSecret`, commits
 * them alone; a change request's merge with its other writes): head, path and key items removed, the deleted
 * record, its list item and path record put. The audit entry (`audit`, whose time is the deletion's) is the caller's
 * to write: its own item alone, or packed with a merge's other entries. Head, path and key item must exist (items 0
 * to 2); with `expected`, the key item must also be as it was read (the merge's base version).
 */
export function secretDeleteItems(
  db: Db,
  workspaceId: string,
  secret: StoredSecret,
  audit: AuditEntry,
  deletion: { deletedBy: string; purgeAt: string },
  expected?: SecretRecord,
): TransactItem[] {
  const keyKey = keys.environmentSecret(workspaceId, secret.environmentId, secret.key);
  const condition = expected ? unchangedSince(expected) : undefined;
  const keyItem = condition
    ? {
        Delete: {
          TableName: db.tableName,
          Key: keyKey,
          ...condition,
          ConditionExpression: `attribute_exists(PK) AND (${condition.ConditionExpression})`,
        },
      }
    : remove(db, keyKey);
  const { head: current, path } = secretItems(workspaceId, secret);
  // The head as it was, less its sealed value: the current version's item (which stays until the purge) holds the
  // same ciphertext, so a large value is not written twice (and into GSI2) by every delete.
  const { sealed: _sealed, ...head } = current;
  const deletedAt = audit.createdAt;
  return [
    remove(db, keys.secretHead(workspaceId, secret.id)),
    remove(db, keys.secretPath(workspaceId, path)),
    keyItem,
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...keys.secretPurge(workspaceId, secret.id),
          ...gsi2.purge(workspaceId, secret.id, deletion.purgeAt),
          // Listed only while it may be restored: a delete without a window purges it at once.
          ...(deletion.purgeAt > deletedAt && gsi1.deletedSecret(workspaceId, secret.id)),
          type: ENTITY.secretPurge,
          workspaceId,
          secretId: secret.id,
          createdAt: deletedAt,
          deletedAt,
          deletedBy: deletion.deletedBy,
          purgeAt: deletion.purgeAt,
          head,
        },
      },
    },
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...keys.deletedSecret(workspaceId, secret.environmentId, deletedAt, secret.id),
          type: ENTITY.deletedSecret,
          ...pick<SecretRecord>(head, DELETED_FIELDS as (keyof SecretRecord)[]),
          deletedAt,
          deletedBy: deletion.deletedBy,
          purgeAt: deletion.purgeAt,
          ttl: epochSeconds(deletion.purgeAt),
        },
      },
    },
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...keys.deletedSecretPath(workspaceId, path),
          type: ENTITY.deletedSecretPath,
          secretId: secret.id,
          ttl: epochSeconds(deletion.purgeAt),
        },
      },
    },
  ];
}

/** A Delete of an item that must exist. */
const remove = (db: Db, key: ItemKey): TransactItem => ({
  Delete: { TableName: db.tableName, Key: key, ConditionExpression: 'attribute_exists(PK)' },
});

/** `secretDeleteItems` bound to a table: what another feature's service is given to prepare deletes (a merge). */
export type DeletePreparer = (
  ...args: Parameters<typeof secretDeleteItems> extends [unknown, ...infer Rest] ? Rest : never
) => TransactItem[];

/** Binds `secretDeleteItems` to the function's table (its composition module does, once). */
export function deletePreparer(db: Db): DeletePreparer {
  return (...args) => secretDeleteItems(db, ...args);
}
