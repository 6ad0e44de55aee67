import type { ItemKey, Prefetched } from '../platform/prefetch.ts';
import { type AuditWrite, putAuditEntries } from '../audit/index.ts';
import { edgeRoom, referenceEdgeItems } from '../references/index.ts';
import { oldItemAt, transact } from '../platform/store/conditional.ts';
import { fromStored } from '../platform/store/sealed.ts';
import {
  secretPath,
  toRecord,
  toSecret,
  toVersionRecord,
  VersionConflictError,
  VersionIdTakenError,
  InRecoveryWindowError,
  type SecretRecord,
  type StoredSecret,
  type StoredVersion,
  type VersionRecord,
} from './secret-record.ts';

import { secretVersionItems, type VersionWrite } from './secret-version-items.ts';

export { secretItems, type NewVersion } from './secret-version-items.ts';
import { makeRevealLimiter, type RevealLimit, type RevealLimiter } from './reveal-limit-store.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { readItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';

/** Secrets: heads (by id and by path), per-environment key items, immutable versions, reveal counters. */
export function makeSecretStore(db: Db, pager: Pager, limiter: RevealLimiter = makeRevealLimiter(db)) {
  return {
    /** What a read of a secret by id needs, to be read ahead with the credential: its head, and an older version. */
    secretByIdKeys(workspaceId: string, secretId: string, version?: number): ItemKey[] {
      return [keys.secretHead(workspaceId, secretId), ...(version ? [keys.secretVersion(workspaceId, secretId, version)] : [])];
    },

    /** What a read of a secret by path needs, to be read ahead with the credential. */
    secretByPathKeys(workspaceId: string, path: string): ItemKey[] {
      return [keys.secretPath(workspaceId, path)];
    },

    /** What a write of `key` needs, to be read ahead with the credential: the environment and the key's item. */
    secretWriteKeys(workspaceId: string, environmentId: string, key: string): ItemKey[] {
      return [keys.environment(workspaceId, environmentId), keys.environmentSecret(workspaceId, environmentId, key)];
    },

    async getSecretHead(workspaceId: string, secretId: string, prefetched?: Prefetched): Promise<StoredSecret | undefined> {
      return toSecret(await readItem(db, keys.secretHead(workspaceId, secretId), prefetched));
    },

    async getSecretByPath(workspaceId: string, path: string, prefetched?: Prefetched): Promise<StoredSecret | undefined> {
      return toSecret(await readItem(db, keys.secretPath(workspaceId, path), prefetched));
    },

    async getEnvironmentSecret(workspaceId: string, environmentId: string, key: string, prefetched?: Prefetched) {
      return toRecord(await readItem(db, keys.environmentSecret(workspaceId, environmentId, key), prefetched));
    },

    async getSecretVersion(
      workspaceId: string,
      secretId: string,
      version: number,
      prefetched?: Prefetched,
    ): Promise<StoredVersion | undefined> {
      const item = await readItem(db, keys.secretVersion(workspaceId, secretId, version), prefetched);
      if (!item) return undefined;
      return { ...toVersionRecord(item), sealed: fromStored(item.sealed as Record<string, unknown>) };
    },

    /**
     * Writes a secret's new state in one transaction: the head under its id and its path (which loads read), the
     * environment's key item, the new version's immutable item (if any), the audit entry, and the claim of the
     * version's VersionId. A create claims the path and key (they must not exist); any other write holds only while the
     * key is as `expected` was read (shared/secrets/secret-record.ts, `unchangedSince`). Either condition failing is a
     * version conflict.
     */
    async writeSecretVersion(
      ...[workspaceId, secret, expected, version, audit, reserve, conditions = {}]: [
        ...VersionWrite,
        /**
         * With `notInRecoveryWindow` (the AWS API's CreateSecret), the write also holds only while no secret deleted at
         * its path is in its recovery window, AWS's rule (REST frees the key at once): a condition of the same
         * transaction, so a delete in between cannot slip past it.
         */
        conditions?: { notInRecoveryWindow?: boolean | undefined },
      ]
    ): Promise<void> {
      const windowEnd = conditions.notInRecoveryWindow ? Math.ceil(Date.parse(secret.updatedAt) / 1000) : undefined;
      const {
        items,
        keyItemAt,
        versionAt,
        claimAt = -1,
      } = secretVersionItems(db, workspaceId, secret, expected, version, audit, reserve, windowEnd);
      const path = secretPath(secret);
      if (conditions.notInRecoveryWindow)
        items.push({
          ConditionCheck: {
            TableName: db.tableName,
            Key: keys.deletedSecretPath(workspaceId, path),
            // The path's deletion record expires (TTL, its window's end rounded up to the second) when its window
            // ends; DynamoDB removes it late, so its time decides (a forced delete's name is free at once).
            ConditionExpression: 'attribute_not_exists(PK) OR #ttl <= :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':now': Math.ceil(Date.parse(secret.updatedAt) / 1000) },
          },
        } as never);
      const windowAt = conditions.notInRecoveryWindow ? items.length - 1 : -1;
      // The reverse index follows the current references (write, rollback, label move), in the same transaction.
      items.push(...(referenceEdgeItems(db, workspaceId, secret.id, expected?.references, secret.references, edgeRoom(items)) as never[]));
      const conditional = [
        0,
        1,
        keyItemAt,
        ...(versionAt !== undefined ? [versionAt] : []),
        ...(claimAt >= 0 ? [claimAt] : []),
        ...(windowAt >= 0 ? [windowAt] : []),
      ];
      let found: Record<string, unknown> | null | undefined;
      let atPath: Record<string, unknown> | null | undefined;
      const failed = await transact(db, items, conditional, {
        // A concurrent transaction on the same items is the same race as a failed condition.
        contention: 'handled',
        cancelled: (error) => {
          found = oldItemAt(error, keyItemAt);
          atPath = oldItemAt(error, 1);
        },
      });
      if (failed !== undefined && failed === claimAt) throw new VersionIdTakenError();
      // The path's deletion marker (or, before v1.4, its record under DPATH#) of a secret still in its window.
      const markedPath = failed === 1 && windowEnd !== undefined && atPath?.type === ENTITY.deletedSecretPath;
      if (failed !== undefined && (failed === windowAt || markedPath))
        throw new InRecoveryWindowError(`a secret deleted at ${path} is in its recovery window`);
      if (failed !== undefined) throw new VersionConflictError(found ? { current: toRecord(found) } : undefined);
    },

    /**
     * Counts a reveal against the credential's per-minute limit and the workspace's ceiling (RATE_LIMITED, and
     * nothing written, when either is reached), then writes its audit entry: one PutItem, durable when it answers
     * (a fresh id; the condition only guards the log against an overwrite). A failed write fails the reveal. A
     * reveal that resolved references writes its own entry and one per target in this one call (counted once), all
     * durable before it answers.
     */
    async recordReveal(workspaceId: string, audit: AuditWrite, limit: RevealLimit): Promise<void> {
      await limiter.countReveal(workspaceId, limit);
      await putAuditEntries(db, workspaceId, [audit]);
    },

    /** A secret's versions, newest first (sort keys are zero-padded, so 10 sorts after 9), values never returned. */
    async listSecretVersions(workspaceId: string, secretId: string, page: PageRequest): Promise<Page<VersionRecord>> {
      const result = await pager.queryPage({
        scope: `versions:${workspaceId}:${secretId}`,
        ...patterns.secretVersions(workspaceId, secretId),
        ...page,
      });
      return { ...result, items: result.items.map(toVersionRecord) };
    },

    /** An environment's secrets by key (A→Z), values never read. */
    async listSecrets(
      workspaceId: string,
      environmentId: string,
      page: PageRequest,
      keep?: (record: SecretRecord) => boolean,
    ): Promise<Page<SecretRecord>> {
      const result = await pager.queryPage({
        scope: `secrets:${workspaceId}:${environmentId}`,
        ...patterns.secretsByEnvironment(workspaceId, environmentId),
        newestFirst: false,
        ...(keep && { keep: (item: Record<string, unknown>) => keep(toRecord(item)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toRecord(item)!) };
    },

    /**
     * The workspace's secrets by id, so by creation (newest first unless told otherwise), whose key contains `q`
     * (case-insensitive); all of them without `q`.
     */
    async searchSecrets(
      workspaceId: string,
      q: string | undefined,
      page: PageRequest,
      keep?: (record: SecretRecord) => boolean,
      newestFirst = true,
    ): Promise<Page<SecretRecord>> {
      const result = await pager.queryPage({
        // A cursor resumes the order it was made in only.
        scope: `search${newestFirst ? '' : '-oldest-first'}:${workspaceId}:${q ?? ''}`,
        ...patterns.secretsByWorkspace(workspaceId),
        newestFirst,
        ...(q ? { filter: { FilterExpression: 'contains(keyLower, :q)', ExpressionAttributeValues: { ':q': q.toLowerCase() } } } : {}),
        ...(keep && { keep: (item: Record<string, unknown>) => keep(toRecord(item)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toRecord(item)!) };
    },
  };
}

export type SecretStore = ReturnType<typeof makeSecretStore>;
