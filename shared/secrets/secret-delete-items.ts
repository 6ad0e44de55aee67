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
 * them alone; a change request's merge with its other writes): 4 items, so a merge of 20 deletes fits one
 * transaction. The head becomes the deleted record (same key, `SecretPurge`), the path item the path's deletion
 * marker (`DeletedSecretPath`, with a TTL at `purgeAt`), the key item is removed and the environment's list item put.
 * Reads by id and path see neither as a secret (secret-record.ts, `toRecord`); a new secret may take the path over a
 * marker. The audit entry (`audit`, whose time is the deletion's) is the caller's to write: its own item alone, or
 * packed with a merge's other entries. Head, path and key item must be live (items 0 to 2); with `expected`, the key
 * item must also be as it was read (the merge's base version).
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
  const ttl = epochSeconds(deletion.purgeAt);
  return [
    replaceLive(db, keys.secretHead(workspaceId, secret.id), ENTITY.secretHead, {
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
    }),
    replaceLive(db, keys.secretPath(workspaceId, path), ENTITY.secretPath, { type: ENTITY.deletedSecretPath, secretId: secret.id, ttl }),
    keyItem,
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
          ttl,
        },
      },
    },
  ];
}

/** A Put over an item that must be live (of `type`): a secret's head or path item, replaced by what a delete leaves. */
const replaceLive = (db: Db, key: ItemKey, type: string, item: Record<string, unknown>): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: { ...key, ...item },
    ConditionExpression: '#type = :live',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':live': type },
  },
});

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
