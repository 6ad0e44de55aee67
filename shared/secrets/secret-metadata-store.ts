import { type AuditEntry, auditPut } from '../audit/index.ts';
import { itemKeyString, type ItemKey } from '../platform/prefetch.ts';
import { transact } from '../platform/store/conditional.ts';
import { keys } from '../platform/store/keys.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import {
  revisionAfter,
  secretPath,
  toSecret,
  toVersionRecord,
  unchangedSince,
  VersionConflictError,
  type SecretRecord,
  type StoredSecret,
  type VersionRecord,
} from './secret-record.ts';

/**
 * What the AWS API keeps of a secret besides its values (decisions.md v1.3): the VersionIds its writes' tokens named
 * (`VID#` items beside the versions, claimed in each version's own transaction) and its description and tags (on
 * the head, its path copy and its key item, which lists and search read); and its batched read of secrets by path.
 */
export function makeSecretMetadataStore(db: Db) {
  return {
    /**
     * The secrets at these paths, with their current sealed values, in one BatchGetItem (eventually consistent, at
     * half the read units, as reveals read): BatchGetSecretValue. Absent ones are undefined.
     */
    async getSecretsByPaths(workspaceId: string, paths: readonly string[]): Promise<Map<string, StoredSecret | undefined>> {
      const found = await batchRead(
        db,
        paths.map((path) => keys.secretPath(workspaceId, path)),
        { consistent: false },
      );
      return new Map(paths.map((path) => [path, toSecret(found.get(itemKeyString(keys.secretPath(workspaceId, path))))]));
    },

    /** Some versions of a secret by number, without their values, in one BatchGetItem (absent ones left out). */
    async getSecretVersionRecords(workspaceId: string, secretId: string, versions: readonly number[]): Promise<VersionRecord[]> {
      const itemKeys = versions.map((version) => keys.secretVersion(workspaceId, secretId, version));
      const found = await batchRead(db, itemKeys, { projection: ['version', 'createdAt', 'createdBy', 'rolledBackFrom', 'versionId'] });
      return itemKeys.flatMap((key) => {
        const item = found.get(itemKeyString(key));
        return item ? [toVersionRecord(item)] : [];
      });
    },

    /** The version a VersionId given as a `ClientRequestToken` names in the secret, or undefined. */
    async getVersionNumberOf(workspaceId: string, secretId: string, versionId: string): Promise<number | undefined> {
      const item = await getItem(db, keys.secretVersionId(workspaceId, secretId, versionId));
      return item?.version as number | undefined;
    },

    /**
     * Changes what the head says of the secret besides its value (description, tags), on the head, its path copy and
     * its key item, with the audit entry, when the secret is still as `expected` was read (its revision); else
     * a VersionConflictError (the caller reads again). `changedAt` (when they last changed) only moves forward;
     * `updatedAt` stays when the current version was written.
     */
    async updateSecretMetadata(
      workspaceId: string,
      record: SecretRecord,
      expected: SecretRecord,
      change: { description?: string | null; tags?: Record<string, string> | null },
      audit: AuditEntry,
    ): Promise<void> {
      const condition = unchangedSince(expected);
      const sets = ['changedAt = :newChangedAt', '#revision = :nextRevision'];
      const removes: string[] = [];
      const values: Record<string, unknown> = {
        ...condition.ExpressionAttributeValues,
        ':newChangedAt': record.changedAt,
        ':nextRevision': revisionAfter(expected),
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
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeNames: condition.ExpressionAttributeNames,
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

/** A secret's metadata and version records beside its head, which a service asks for by name. */
export type SecretMetadataStore = ReturnType<typeof makeSecretMetadataStore>;
