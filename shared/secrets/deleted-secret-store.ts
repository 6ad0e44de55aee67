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
 * (head, path, key item, value item: its key is free for a new secret) and leaves two items:
 * - the **deleted record** in the secret's own partition (`#PURGE`, beside its versions): the head as it was, who
 *   deleted it, when, and `purgeAt`; on GSI2 `PURGE` by `purgeAt`, where the purger finds it when the window ends
 *   (purge-store.ts); with a window, on GSI1 `DELETED#<ws>` by its id too, where ListSecrets finds it (deleted-secret-index-store.ts);
 * - the **list item** in the workspace partition (`DEL#<env>#<deletedAt>#<id>`): the environment's deleted secrets,
 *   newest deletion first, with a TTL at `purgeAt`.
 * Reads treat anything past `purgeAt` as gone, whether or not the purger or TTL has got to it. A restore puts the
 * head, path, key and value items back from the record and removes both, in one transaction.
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
     * never deleted, past `purgeAt`, or purged.
     */
    async getDeletedSecret(
      workspaceId: string,
      secretId: string,
      now: number,
    ): Promise<(DeletedSecret & { sealed: StoredSecret['sealed'] }) | undefined> {
      // The whole record (description, tags and VersionIds too): a restore puts it back as it was.
      const deleted = deletedOf(await getItem(db, keys.secretPurge(workspaceId, secretId)), now);
      if (!deleted) return undefined;
      // A secret deleted before it had a value has no version to read.
      if (deleted.currentVersion === 0) return { ...deleted, sealed: undefined };
      const version = await getItem(db, keys.secretVersion(workspaceId, secretId, deleted.currentVersion));
      if (!version) return undefined;
      return { ...deleted, sealed: fromStored(version.sealed as Record<string, unknown>) };
    },

    /** The secret last deleted at `path`, as `getDeletedSecret` reads it; undefined when none is restorable. */
    async getDeletedSecretByPath(workspaceId: string, path: string, now: number) {
      const item = await getItem(db, keys.deletedSecretPath(workspaceId, path));
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
     * Puts the secret back whole (head, path, key and value items, as they were; its versions never left) and
     * removes its deleted record and list item, with the audit entry, in one transaction: CONFLICT when a live secret
     * holds its key (or path), NOT_FOUND when it was restored or purged meanwhile.
     */
    async restoreSecret(
      workspaceId: string,
      deleted: DeletedSecret & { sealed: StoredSecret['sealed'] },
      audit: AuditEntry,
      now: number,
    ): Promise<void> {
      const { deletedAt, deletedBy: _by, purgeAt: _purgeAt, ...rest } = deleted;
      const secret: StoredSecret = rest;
      const { head, listed, path } = secretItems(workspaceId, secret);
      const put = (key: ItemKey, type: string, item: Record<string, unknown>) => ({
        Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ConditionExpression: 'attribute_not_exists(PK)' },
      });
      const failed = await transact(
        db,
        [
          {
            Delete: {
              TableName: db.tableName,
              Key: keys.secretPurge(workspaceId, secret.id),
              ConditionExpression: 'attribute_exists(PK) AND purgeAt > :now',
              ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
            },
          },
          put(keys.environmentSecret(workspaceId, secret.environmentId, secret.key), ENTITY.environmentSecret, listed),
          put(keys.secretPath(workspaceId, path), ENTITY.secretPath, head),
          put(keys.secretHead(workspaceId, secret.id), ENTITY.secretHead, head),
          { Delete: { TableName: db.tableName, Key: keys.deletedSecret(workspaceId, secret.environmentId, deletedAt, secret.id) } },
          auditPut(db, workspaceId, audit),
        ],
        [0, 1, 2, 3],
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
