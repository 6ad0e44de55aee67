import type { SealedValue } from '../platform/crypto/envelope.ts';
import type { ItemKey, Prefetched } from '../platform/prefetch.ts';
import { type AuditEntry, auditPut, putAuditEntries } from '../audit/index.ts';
import { transact } from '../platform/store/conditional.ts';
import { pick } from '../platform/store/items.ts';
import { fromStored, toStored } from '../platform/store/sealed.ts';
import { environmentValuePut } from './environment-value-store.ts';
import { makeRevealLimiter, type RevealLimit, type RevealLimiter } from './reveal-limit-store.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { readItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { ENTITY, gsi1, gsi4, keys, patterns } from '../platform/store/keys.ts';

/** A secret's state without its value: what lists and search show, plus where it lives. */
export interface SecretRecord {
  id: string;
  key: string;
  projectId: string;
  projectSlug: string;
  environmentId: string;
  envSlug: string;
  currentVersion: number;
  createdAt: string;
  updatedAt: string;
  /** The AWS API's description and tags of the secret (decisions.md v1.3); absent when it has none. */
  description?: string;
  tags?: Record<string, string>;
  /** When the description or tags last changed (`updatedAt` is when the current version was written). */
  changedAt?: string;
  /**
   * The VersionIds of the current and previous versions, by number, when an AWS write's `ClientRequestToken` named
   * them (any other version's is derived from the secret id and number: shared/aws/names.ts).
   */
  versionIds?: Record<string, string>;
}

/**
 * What a secret's current state is stored as: the head (under its id and its path), the environment's key item (in
 * the search indexes) and the sealed value. A write puts them; a restore puts them back.
 */
export function secretItems(workspaceId: string, secret: StoredSecret) {
  const { sealed, ...record } = secret;
  const stored = toStored(sealed);
  const listed = {
    ...record,
    workspaceId,
    keyLower: record.key.toLowerCase(),
    ...gsi1.workspaceSecret(workspaceId, record.id),
    ...gsi4.environmentSecret(workspaceId, record.environmentId, record.id),
  };
  return { stored, head: { ...record, workspaceId, sealed: stored }, listed, path: secretPath(record) };
}

/** The head of a secret: its record and the sealed value of its current version. */
export interface StoredSecret extends SecretRecord {
  sealed: SealedValue;
}

export interface StoredVersion {
  version: number;
  sealed: SealedValue;
  createdAt: string;
  createdBy: string;
  /** The version whose value this one restored (a rollback), or null. */
  rolledBackFrom: number | null;
  /** The `ClientRequestToken` of the AWS write that made it, or null (its VersionId is then derived). */
  versionId: string | null;
}

/** A version as the history lists it: never its value. */
export type VersionRecord = Omit<StoredVersion, 'sealed'>;

const toVersionRecord = (item: Record<string, unknown>): VersionRecord => ({
  version: item.version as number,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  rolledBackFrom: (item.rolledBackFrom as number | undefined) ?? null,
  versionId: (item.versionId as string | undefined) ?? null,
});

/** The condition of a head, path or key item failed: another write or a delete got there first. */
export class VersionConflictError extends Error {}

/** The write's VersionId (an AWS `ClientRequestToken`) already names a version of the secret. */
export class VersionIdTakenError extends Error {}

const RECORD_FIELDS: readonly (keyof SecretRecord)[] = [
  'id',
  'key',
  'projectId',
  'projectSlug',
  'environmentId',
  'envSlug',
  'currentVersion',
  'createdAt',
  'updatedAt',
];

/** The head's fields that only some secrets have: copied when present, never written as null. */
const OPTIONAL_FIELDS = ['description', 'tags', 'changedAt', 'versionIds'] as const;

export const toRecord = (item: Record<string, unknown> | undefined): SecretRecord | undefined => {
  const record = pick<SecretRecord>(item, RECORD_FIELDS);
  if (!record) return undefined;
  for (const field of OPTIONAL_FIELDS)
    if (item![field] !== undefined && item![field] !== null) Object.assign(record, { [field]: item![field] });
  return record;
};
export const toSecret = (item: Record<string, unknown> | undefined): StoredSecret | undefined =>
  item && { ...toRecord(item)!, sealed: fromStored(item.sealed as Record<string, unknown>) };

/** The path of a secret: `<projectSlug>/<envSlug>/<key>`. */
export const secretPath = (record: Pick<SecretRecord, 'projectSlug' | 'envSlug' | 'key'>) =>
  `${record.projectSlug}/${record.envSlug}/${record.key}`;

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
     * Writes version `secret.currentVersion` in one transaction: the immutable version item, the head under its id
     * and its path, the environment's key item, and the audit entry. A create claims the path and key (they must
     * not exist); a rotate moves them only from `previousVersion`. Either condition failing is a version conflict.
     */
    async writeSecretVersion(
      workspaceId: string,
      secret: StoredSecret,
      previousVersion: number,
      version: { createdBy: string; rolledBackFrom?: number | undefined; versionId?: string | undefined },
      audit: AuditEntry,
    ): Promise<void> {
      const { sealed, ...record } = secret;
      const { stored, head, listed, path } = secretItems(workspaceId, secret);
      const write = (key: { PK: string; SK: string }, type: string, item: Record<string, unknown>) =>
        previousVersion === 0
          ? { Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ConditionExpression: 'attribute_not_exists(PK)' } }
          : {
              Put: {
                TableName: db.tableName,
                Item: { ...key, type, ...item },
                ConditionExpression: 'currentVersion = :previous',
                ExpressionAttributeValues: { ':previous': previousVersion },
              },
            };
      const failed = await transact(
        db,
        [
          write(keys.secretHead(workspaceId, record.id), ENTITY.secretHead, head),
          write(keys.secretPath(workspaceId, path), ENTITY.secretPath, head),
          write(keys.environmentSecret(workspaceId, record.environmentId, record.key), ENTITY.environmentSecret, listed),
          environmentValuePut(db, workspaceId, {
            id: record.id,
            key: record.key,
            version: record.currentVersion,
            environmentId: record.environmentId,
            sealed,
          }),
          {
            Put: {
              TableName: db.tableName,
              Item: {
                ...keys.secretVersion(workspaceId, record.id, record.currentVersion),
                type: ENTITY.secretVersion,
                secretId: record.id,
                version: record.currentVersion,
                sealed: stored,
                createdAt: record.updatedAt,
                createdBy: version.createdBy,
                ...(version.rolledBackFrom !== undefined && { rolledBackFrom: version.rolledBackFrom }),
                ...(version.versionId !== undefined && { versionId: version.versionId }),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          auditPut(db, workspaceId, audit),
          // A VersionId named by the write is claimed with it: a retry with the same token fails here.
          ...(version.versionId === undefined
            ? []
            : [
                {
                  Put: {
                    TableName: db.tableName,
                    Item: {
                      ...keys.secretVersionId(workspaceId, record.id, version.versionId),
                      type: ENTITY.secretVersionId,
                      version: record.currentVersion,
                    },
                    ConditionExpression: 'attribute_not_exists(PK)',
                  },
                },
              ]),
        ],
        [0, 1, 2, 3, 6],
        // A concurrent transaction on the same items is the same race as a failed version condition.
        { contention: 'handled' },
      );
      if (failed === 6) throw new VersionIdTakenError();
      if (failed !== undefined) throw new VersionConflictError();
    },

    /**
     * Counts a reveal against the credential's per-minute limit and the workspace's ceiling (RATE_LIMITED, and
     * nothing written, when either is reached), then writes its audit entry: one PutItem, durable when it answers
     * (a fresh id; the condition only guards the log against an overwrite). A failed write fails the reveal.
     */
    async recordReveal(workspaceId: string, audit: AuditEntry, limit: RevealLimit): Promise<void> {
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

    /** The workspace's secrets, newest first, whose key contains `q` (case-insensitive); all of them without `q`. */
    async searchSecrets(
      workspaceId: string,
      q: string | undefined,
      page: PageRequest,
      keep?: (record: SecretRecord) => boolean,
    ): Promise<Page<SecretRecord>> {
      const result = await pager.queryPage({
        scope: `search:${workspaceId}:${q ?? ''}`,
        ...patterns.secretsByWorkspace(workspaceId),
        ...(q ? { filter: { FilterExpression: 'contains(keyLower, :q)', ExpressionAttributeValues: { ':q': q.toLowerCase() } } } : {}),
        ...(keep && { keep: (item: Record<string, unknown>) => keep(toRecord(item)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toRecord(item)!) };
    },
  };
}

export type SecretStore = ReturnType<typeof makeSecretStore>;
