import { NotFoundError, ConflictError } from '../platform/errors.ts';
import type { ItemKey } from '../platform/prefetch.ts';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import { transact } from '../platform/store/conditional.ts';
import { composeStores } from '../platform/store/compose.ts';
import { pick } from '../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import { fromStored } from '../platform/store/sealed.ts';
import { deletedOf, type DeletedSecret, type StoredSecret } from './secret-record.ts';
import { makeDeletedSecretIndexStore } from './deleted-secret-index-store.ts';
import { makePurgeStore } from './purge-store.ts';
import { secretItems } from './secret-store.ts';
import type { Db } from '../platform/store/send.ts';

/**
 * Recoverable deletes (decisions.md, "Recoverable deletes"). A delete removes the secret from every lookup at once
 * (its key is free for a new secret) and leaves (secret-delete-items.ts):
 * - the **deleted record** at the head's key (`SecretPurge`): the head as it was, who deleted it, when, and
 *   `purgeAt`; on GSI2 `PURGE` by `purgeAt`, where the purger finds it when the window ends (purge-store.ts); with a
 *   window, on GSI1 `DELETED#<ws>` by its id too, where ListSecrets finds it (deleted-secret-index-store.ts). Deletes
 *   before v1.4 put it in the secret's own partition (`#PURGE`), where it is still read, restored and purged;
 * - the **path marker** at the path item's key (`DeletedSecretPath`, TTL at `purgeAt`; before v1.4 `DPATH#`);
 * - the **list item** in the workspace partition (`DEL#<env>#<deletedAt>#<id>`): the environment's deleted secrets,
 *   newest deletion first, with a TTL at `purgeAt`.
 * Reads treat anything past `purgeAt` as gone, whether or not the purger or TTL has got to it. A restore puts the
 * head, path and key items back from the record and removes the list item, in one transaction.
 */

import { DELETED_FIELDS, secretDeleteItems } from './secret-delete-items.ts';

export function makeDeletedSecretStore(db: Db, pager: Pager) {
  const store = {
    /**
     * Removes the secret from every lookup (head, path and key item must exist), puts its deleted record and list
     * item, and the audit entry, all or nothing. With `purgeAt` equal to `deletedAt` the caller purges at once.
     */
    async deleteSecret(
      workspaceId: string,
      secret: StoredSecret,
      audit: AuditEntry,
      deletion: { deletedBy: string; purgeAt: string },
    ): Promise<void> {
      const failed = await transact(
        db,
        [...secretDeleteItems(db, workspaceId, secret, audit, deletion), auditPut(db, workspaceId, audit)],
        [0, 1, 2],
      );
      if (failed !== undefined) throw new NotFoundError(`secret ${secret.id} was not found`);
    },

    /**
     * A deleted secret by id, with its current version's sealed value (from that version's item); undefined when
     * never deleted, past `purgeAt`, or purged. Its record is at its head's key (a GetItem that also tells a live
     * secret); one deleted before v1.4 has it in its own partition (`#PURGE`), read next (`legacyRecord`).
     */
    async getDeletedSecret(workspaceId: string, secretId: string, now: number): Promise<RestorableSecret | undefined> {
      // The whole record (description, tags and VersionIds too): a restore puts it back as it was.
      const atHead = await getItem(db, keys.secretHead(workspaceId, secretId));
      if (atHead && atHead.type !== ENTITY.secretPurge) return undefined;
      const item = atHead ?? (await getItem(db, keys.secretPurge(workspaceId, secretId)));
      const found = deletedOf(item, now);
      if (!found) return undefined;
      const deleted = atHead ? found : { ...found, legacyRecord: true as const };
      // A secret deleted before it had a value has no version to read.
      if (deleted.currentVersion === 0) return { ...deleted, sealed: undefined };
      const version = await getItem(db, keys.secretVersion(workspaceId, secretId, deleted.currentVersion));
      if (!version) return undefined;
      return { ...deleted, sealed: fromStored(version.sealed as Record<string, unknown>) };
    },

    /**
     * The secret last deleted at `path`, as `getDeletedSecret` reads it; undefined when none is restorable. The path's
     * deletion marker names it; a path deleted before v1.4 has its record under `DPATH#`, read when there is no marker.
     */
    async getDeletedSecretByPath(workspaceId: string, path: string, now: number) {
      const atPath = await getItem(db, keys.secretPath(workspaceId, path));
      const item = atPath?.type === ENTITY.deletedSecretPath ? atPath : await getItem(db, keys.deletedSecretPath(workspaceId, path));
      return typeof item?.secretId === 'string' ? store.getDeletedSecret(workspaceId, item.secretId, now) : undefined;
    },

    /** Deleted secrets still within their window and, with `visible`, only those the caller may read (as it pages). */
    async listDeletedSecrets(
      workspaceId: string,
      environmentId: string,
      page: PageRequest,
      now: number,
      visible?: (secret: DeletedSecret) => boolean,
    ): Promise<Page<DeletedSecret>> {
      const restorable = (item: Record<string, unknown>) => typeof item.purgeAt === 'string' && Date.parse(item.purgeAt) > now;
      const result = await pager.queryPage({
        scope: `deleted:${workspaceId}:${environmentId}`,
        ...patterns.deletedSecretsByEnvironment(workspaceId, environmentId),
        ...page,
        keep: visible ? (item) => restorable(item) && visible(pick<DeletedSecret>(item, DELETED_FIELDS)!) : restorable,
      });
      return { ...result, items: result.items.map((item) => pick<DeletedSecret>(item, DELETED_FIELDS)!) };
    },

    /**
     * Puts the secret back whole (head, path and key items, as they were; its versions never left) over its deleted
     * record and path marker, and removes its list item, with the audit entry, in one transaction: CONFLICT when a
     * live secret holds its key (or path), NOT_FOUND when it was restored or purged meanwhile. A record from before
     * v1.4 (`legacyRecord`, in the secret's partition) is deleted and the head put beside it.
     */
    async restoreSecret(workspaceId: string, deleted: RestorableSecret, audit: AuditEntry, now: number): Promise<void> {
      const { deletedAt, deletedBy: _by, purgeAt: _purgeAt, legacyRecord, ...rest } = deleted;
      const secret: StoredSecret = rest;
      const { head, listed, path } = secretItems(workspaceId, secret);
      const put = (key: ItemKey, type: string, item: Record<string, unknown>, free = 'attribute_not_exists(PK)') => ({
        Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ConditionExpression: free },
      });
      const restorable = { ':now': new Date(now).toISOString() };
      const headKey = keys.secretHead(workspaceId, secret.id);
      const record = legacyRecord
        ? {
            Delete: {
              TableName: db.tableName,
              Key: keys.secretPurge(workspaceId, secret.id),
              ConditionExpression: 'attribute_exists(PK) AND purgeAt > :now',
              ExpressionAttributeValues: restorable,
            },
          }
        : {
            Put: {
              ...put(headKey, ENTITY.secretHead, head).Put,
              ConditionExpression: '#type = :purge AND purgeAt > :now',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ...restorable, ':purge': ENTITY.secretPurge },
            },
          };
      const failed = await transact(
        db,
        [
          record,
          put(keys.environmentSecret(workspaceId, secret.environmentId, secret.key), ENTITY.environmentSecret, listed),
          pathPut(db, keys.secretPath(workspaceId, path), head),
          ...(legacyRecord ? [put(headKey, ENTITY.secretHead, head)] : []),
          { Delete: { TableName: db.tableName, Key: keys.deletedSecret(workspaceId, secret.environmentId, deletedAt, secret.id) } },
          auditPut(db, workspaceId, audit),
        ],
        [0, 1, 2, ...(legacyRecord ? [3] : [])],
      );
      if (failed === 0) throw new NotFoundError(`secret ${secret.id} was not found among the deleted secrets`);
      if (failed !== undefined)
        throw new ConflictError(`a secret with key ${secret.key} exists in its environment: delete or rename it first`);
    },
  };
  return composeStores(store, makeDeletedSecretIndexStore(db, pager), makePurgeStore(db));
}

/** Deleted secrets: the delete, the recovery window's reads, the restore and the purge, which a service asks for by name. */
export type DeletedSecretStore = ReturnType<typeof makeDeletedSecretStore>;

/** A deleted secret as a restore takes it: its record, its current value, and whether the record is from before v1.4. */
export type RestorableSecret = DeletedSecret & { sealed: StoredSecret['sealed']; legacyRecord?: true };

/** The path item of a restored secret: free, or a deletion marker (its own, or one left by another secret deleted there). */
function pathPut(db: Db, key: ItemKey, head: Record<string, unknown>) {
  return {
    Put: {
      TableName: db.tableName,
      Item: { ...key, ...head, type: ENTITY.secretPath },
      ConditionExpression: 'attribute_not_exists(PK) OR #type = :marker',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':marker': ENTITY.deletedSecretPath },
    },
  };
}
