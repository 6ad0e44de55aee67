import type { ItemKey } from '../platform/prefetch.ts';
import { transact } from '../platform/store/conditional.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { queryAll } from '../platform/store/query.ts';
import { batchDelete, getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { edgeKeysOf } from '../references/index.ts';

/**
 * The purge of a deleted secret (deleted-secret-store.ts), on its own so that the purger's function builds these two
 * methods and nothing of deletes and restores: a GetItem and a Query of the secret's partition, BatchWriteItem deletes of
 * its versions, and one transaction of two deletes (its list item and record).
 */
export function makePurgeStore(db: Db) {
  return {
    /**
     * Deletes every version of a deleted secret, its list item, then its deleted record; safe to run again. The record
     * is at the head's key, deleted only while it is one (a restore put the head back); one from before v1.4 is in
     * the secret's partition (`#PURGE`). The path marker is left to its TTL: a new secret may have taken the path.
     */
    async purgeSecretVersions(workspaceId: string, secretId: string): Promise<number> {
      const atHead = await getItem(db, keys.secretHead(workspaceId, secretId));
      if (atHead && atHead.type !== ENTITY.secretPurge) return 0;
      const record = atHead ?? (await getItem(db, keys.secretPurge(workspaceId, secretId)));
      // The versions and their VersionId items, in one Query of the secret's partition; the record goes last.
      const items = await queryAll<ItemKey>(db, patterns.secretPartition(workspaceId, secretId), {
        projection: ['PK', 'SK'],
        consistent: true,
      });
      const legacy = keys.secretPurge(workspaceId, secretId).SK;
      const versions = items.filter((item) => item.SK !== legacy);
      await batchDelete(db, versions);
      const head = record?.head as { environmentId?: string; key?: string; references?: string[] } | undefined;
      const listed =
        head?.environmentId && typeof record?.deletedAt === 'string'
          ? [keys.deletedSecret(workspaceId, head.environmentId, record.deletedAt, secretId)]
          : [];
      // One transaction of deletes, not a batch: IAM authorises each as a DeleteItem, which a grant can give on the
      // workspace partition without also giving batch puts there (lib/access.ts).
      const remove = (key: ItemKey) => ({ Delete: { TableName: db.tableName, Key: key } });
      // The secret's reverse index edges go with it (a deleted secret keeps them: a restore brings its references back).
      const edges = edgeKeysOf(workspaceId, secretId, head?.references);
      // A value item of a secret written before v1.4 goes too (environment-value-items.ts); a later one has none.
      const value = head?.environmentId && head.key ? [keys.environmentValue(workspaceId, head.environmentId, head.key)] : [];
      const recordItem = atHead
        ? {
            Delete: {
              TableName: db.tableName,
              Key: keys.secretHead(workspaceId, secretId),
              ConditionExpression: '#type = :purge',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':purge': ENTITY.secretPurge },
            },
          }
        : remove(keys.secretPurge(workspaceId, secretId));
      const removals = [...listed, ...value, ...edges].map(remove);
      // A record restored meanwhile fails its condition (a restore needs the window open, a purge comes after it).
      await transact(db, [...removals, recordItem], [removals.length]);
      return versions.filter((item) => item.SK.startsWith('V#')).length;
    },

    /** Deleted secrets whose window ended before `before` (ISO), purges a crash left unfinished among them. */
    async pendingPurges(before: string, limit = 100): Promise<{ workspaceId: string; secretId: string }[]> {
      return queryAll(db, patterns.pendingPurges(), { skBefore: before, projection: ['workspaceId', 'secretId'], maxItems: limit });
    },
  };
}

/** What the purge reads and deletes. */
export type PurgeStore = ReturnType<typeof makePurgeStore>;
