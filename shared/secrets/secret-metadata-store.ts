import { type AuditEntry, auditPut } from '../audit/index.ts';
import type { ItemKey } from '../platform/prefetch.ts';
import { transact } from '../platform/store/conditional.ts';
import { keys } from '../platform/store/keys.ts';
import { getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { secretPath, VersionConflictError, type SecretRecord } from './secret-store.ts';

/**
 * What the AWS API keeps of a secret besides its values (decisions.md v1.3): the VersionIds its writes' tokens named
 * (`VID#` items beside the versions, claimed in each version's own transaction) and its description and tags (on
 * the head, its path copy and its key item, which lists and search read).
 */
export function makeSecretMetadataStore(db: Db) {
  return {
    /** The version a VersionId given as a `ClientRequestToken` names in the secret, or undefined. */
    async getVersionNumberOf(workspaceId: string, secretId: string, versionId: string): Promise<number | undefined> {
      const item = await getItem(db, keys.secretVersionId(workspaceId, secretId, versionId));
      return item?.version as number | undefined;
    },

    /**
     * Changes what the head says of the secret besides its value (description, tags), on the head, its path copy and
     * its key item, with the audit entry, when the secret is still at `expected.currentVersion` and `updatedAt`; else
     * a VersionConflictError (the caller reads again). `updatedAt` moves forward: LastChangedDate in the AWS API.
     */
    async updateSecretMetadata(
      workspaceId: string,
      record: SecretRecord,
      expected: { currentVersion: number; updatedAt: string },
      change: { description?: string | null; tags?: Record<string, string> | null },
      audit: AuditEntry,
    ): Promise<void> {
      const sets = ['updatedAt = :updatedAt'];
      const removes: string[] = [];
      const values: Record<string, unknown> = {
        ':updatedAt': record.updatedAt,
        ':version': expected.currentVersion,
        ':previous': expected.updatedAt,
      };
      for (const field of ['description', 'tags'] as const) {
        const value = change[field];
        if (value === undefined) continue;
        if (value === null) removes.push(field);
        else {
          sets.push(`${field} = :${field}`);
          values[`:${field}`] = value;
        }
      }
      const update = (key: ItemKey) => ({
        Update: {
          TableName: db.tableName,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'currentVersion = :version AND updatedAt = :previous',
          ExpressionAttributeValues: values,
        },
      });
      const failed = await transact(
        db,
        [
          update(keys.secretHead(workspaceId, record.id)),
          update(keys.secretPath(workspaceId, secretPath(record))),
          update(keys.environmentSecret(workspaceId, record.environmentId, record.key)),
          auditPut(db, workspaceId, audit),
        ],
        [0, 1, 2],
        { contention: 'handled' },
      );
      if (failed !== undefined) throw new VersionConflictError();
    },
  };
}
