import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../platform/store/conditional.ts';
import { gsi1, keys, patterns } from '../platform/store/keys.ts';
import { mergedPage } from '../platform/store/merged-page.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { deletedOf, toRecord, type DeletedSecret, type SecretRecord } from './secret-record.ts';

/** A page reads at most this many Query pages of each partition (and for at most 3 seconds: merged-page.ts). */
const MAX_READS = 50;
/** Index updates the first listing of a workspace's deleted secrets keeps in flight. */
const UPDATES_IN_FLIGHT = 16;

/**
 * The live secrets and those in their recovery window in one list, by creation: the AWS API's ListSecrets with
 * IncludePlannedDeletion. The environments' lists of deleted secrets go by deletion, not creation, so reading them
 * would read all of them for every page; instead a delete with a recovery window puts its deleted record on GSI1
 * under `DELETED#<ws>` by the secret's id, the sort key of the live secrets' partition `SECRETS#<ws>` too (ids sort by
 * creation). A page reads both partitions from one position and merges them (shared/platform/store/merged-page.ts):
 * one Query each, more only to read past what `keep` refuses or a record past its `purgeAt`.
 */
export function makeDeletedSecretIndexStore(db: Db, pager: Pager) {
  /** Workspaces whose deleted records this container knows to be on GSI1: the marker is read once per container. */
  const indexed = new Set<string>();

  return {
    /** A page of the workspace's secrets, live and deleted (those still restorable at `now`) alike, that `keep` accepts. */
    async listSecretsWithDeleted(
      workspaceId: string,
      page: PageRequest,
      options: { newestFirst: boolean; now: number; keep?: ((record: SecretRecord) => boolean) | undefined },
    ): Promise<Page<SecretRecord | DeletedSecret>> {
      const { keep, now } = options;
      const merged = await mergedPage(db, () => pager.codec(), {
        scope: `secrets-with-deleted:${workspaceId}`,
        ...page,
        newestFirst: options.newestFirst,
        maxReads: MAX_READS,
        lists: [
          { pattern: patterns.secretsByWorkspace(workspaceId), ...(keep && { keep: (item) => keep(toRecord(item)!) }) },
          {
            pattern: patterns.deletedSecretsByWorkspace(workspaceId),
            keep: (item) => {
              const deleted = deletedOf(item, now);
              return deleted !== undefined && (!keep || keep(deleted));
            },
          },
        ],
      });
      return { ...merged, items: merged.items.map(({ list, item }) => (list === 0 ? toRecord(item)! : deletedOf(item, now)!)) };
    },

    /**
     * Puts on GSI1 the deleted records of deletes made before they went there, once per workspace: reads the
     * environments' lists of deleted secrets (one Query a MB; TTL takes each at its `purgeAt`), adds the index keys
     * to each record still there (a record restored or purged meanwhile is not brought back), then marks the
     * workspace. Safe to run twice or concurrently; deletes made since put the keys themselves.
     */
    async indexDeletedSecrets(workspaceId: string): Promise<void> {
      if (indexed.has(workspaceId)) return;
      const workspace = await getItem(db, keys.workspace(workspaceId), { consistent: false });
      if (workspace?.deletedSecretsIndexed !== true) {
        const listed = await queryAll<{ id: string }>(db, patterns.deletedSecretsOfWorkspace(workspaceId), { projection: ['id'] });
        const pending = [...new Set(listed.map((item) => item.id))];
        const lanes = Array.from({ length: Math.min(UPDATES_IN_FLIGHT, pending.length) }, async () => {
          for (let id = pending.shift(); id; id = pending.shift()) {
            const index = gsi1.deletedSecret(workspaceId, id);
            await sendConditional(
              db,
              new UpdateCommand({
                TableName: db.tableName,
                Key: keys.secretPurge(workspaceId, id),
                UpdateExpression: 'SET GSI1PK = :pk, GSI1SK = :sk',
                // Only a record with a window: one without is purged at once, and never listed.
                ConditionExpression: 'attribute_exists(PK) AND purgeAt > deletedAt',
                ExpressionAttributeValues: { ':pk': index.GSI1PK, ':sk': index.GSI1SK },
              }),
            );
          }
        });
        await Promise.all(lanes);
        await sendConditional(
          db,
          new UpdateCommand({
            TableName: db.tableName,
            Key: keys.workspace(workspaceId),
            UpdateExpression: 'SET deletedSecretsIndexed = :yes',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':yes': true },
          }),
        );
      }
      indexed.add(workspaceId);
    },
  };
}
