import { type AuditEntry, auditPut } from '../audit/index.ts';
import { ConflictError, LimitExceededError, NotFoundError } from '../platform/errors.ts';
import { countBy, transact } from '../platform/store/conditional.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import { fromStored, toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import type { SyncRecord } from './sync-records.ts';

/**
 * Syncs (decisions.md v1.4, "Syncs"): one item each in the workspace partition (keys.sync), under the workspace's
 * conditional counter. The sync worker writes its outcome and lease on the same item without touching `revision`
 * (pipeline/sync-run-store.ts), so the API's changes are UpdateItems of the fields they change, never a whole Put.
 */

/** At most this many syncs per workspace: the fan-out reads them all in one Query. */
export const MAX_SYNCS = 100;

/** Where a sync pushes from: the environment, as the policy and the audit entries need it. */
export interface SyncEnvironment {
  environmentId: string;
  projectId: string;
  projectSlug: string;
  envSlug: string;
}

/** The fields of a PATCH, as their stored values (a sealed token already sealed). */
export type SyncChanges = Partial<Pick<SyncRecord, 'destination' | 'sealedToken' | 'keys' | 'prune' | 'status'>>;

const RECORD_FIELDS = [
  'id',
  'accountId',
  'environmentId',
  'projectId',
  'projectSlug',
  'envSlug',
  'destination',
  'keys',
  'prune',
  'status',
  'lastSyncedAt',
  'lastError',
  'failingSince',
  'createdAt',
  'updatedAt',
  'revision',
] as const satisfies readonly (keyof SyncRecord)[];

/**
 * The sync of a stored item (undefined for none, or an item of another entity): its record fields only, the sealed
 * token opened into its envelope form; the worker's lease and push marks are left behind.
 */
export function syncOfItem(item: Record<string, unknown> | undefined): SyncRecord | undefined {
  if (!item || item.type !== ENTITY.sync) return undefined;
  const record = Object.fromEntries(RECORD_FIELDS.map((field) => [field, item[field] ?? null])) as unknown as SyncRecord;
  const sealed = item.sealedToken as Record<string, unknown> | undefined;
  return { ...record, revision: Number(record.revision), ...(sealed && { sealedToken: fromStored(sealed) }) };
}

/** The stored attributes of a field's value: a sealed token as binary, the rest as they are. */
const storedValue = (field: string, value: unknown) =>
  field === 'sealedToken' ? toStored(value as NonNullable<SyncRecord['sealedToken']>) : value;

/** The per-workspace counter's change in a transaction: creation counts up under the cap, deletion down. */
function syncCounter(db: Db, workspaceId: string, delta: 1 | -1) {
  return countBy(db, keys.syncCount(workspaceId), { delta, type: ENTITY.syncCount, ...(delta === 1 ? { max: MAX_SYNCS } : {}) });
}

/** Reading a workspace's syncs whole: the stream fan-out's routing (the lead's pipeline), and no page. */
export function makeSyncReader(db: Db) {
  return {
    /** Every sync of the workspace (at most MAX_SYNCS), unpaged. */
    async listSyncsOfWorkspace(workspaceId: string): Promise<SyncRecord[]> {
      const items = await queryAll<Record<string, unknown>>(db, patterns.syncsByWorkspace(workspaceId), { maxItems: MAX_SYNCS });
      return items.map((item) => syncOfItem(item)).filter((sync) => sync !== undefined);
    },
  };
}

/** What the syncs route group does with syncs: reads, creation under the cap, changes, deletion. */
export function makeSyncStore(db: Db, pager: Pager) {
  return {
    ...makeSyncReader(db),

    /** The environment a sync pushes from; undefined when it does not exist. */
    async getSyncEnvironment(workspaceId: string, environmentId: string): Promise<SyncEnvironment | undefined> {
      const env = await getItem(db, keys.environment(workspaceId, environmentId));
      if (!env) return undefined;
      return { environmentId, projectId: env.projectId as string, projectSlug: env.projectSlug as string, envSlug: env.slug as string };
    },

    async getSync(workspaceId: string, syncId: string): Promise<SyncRecord | undefined> {
      return syncOfItem(await getItem(db, keys.sync(workspaceId, syncId), { consistent: true }));
    },

    /** The workspace's syncs, newest first, one page at a time, those `keep` keeps (an environment, the caller's view). */
    async listSyncPage(workspaceId: string, page: PageRequest, keep: (sync: SyncRecord) => boolean): Promise<Page<SyncRecord>> {
      const result = await pager.queryPage({
        scope: `syncs:${workspaceId}`,
        ...patterns.syncsByWorkspace(workspaceId),
        keep: (item) => {
          const sync = syncOfItem(item);
          return sync !== undefined && keep(sync);
        },
        ...page,
      });
      return { ...result, items: result.items.map((item) => syncOfItem(item)!) };
    },

    /** The sync, the cap counter and the audit entry together; the 101st sync is LIMIT_EXCEEDED. */
    async createSync(workspaceId: string, sync: SyncRecord, audit: AuditEntry): Promise<void> {
      const { sealedToken, ...record } = sync;
      const item = {
        ...keys.sync(workspaceId, sync.id),
        type: ENTITY.sync,
        workspaceId,
        ...record,
        ...(sealedToken && { sealedToken: toStored(sealedToken) }),
      };
      const put = { Put: { TableName: db.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } };
      const failed = await transact(db, [syncCounter(db, workspaceId, 1), put, auditPut(db, workspaceId, audit)], [0]);
      if (failed === 0) throw new LimitExceededError(`syncs: a workspace has at most ${MAX_SYNCS} syncs`);
    },

    /**
     * SETs the changed fields, `updatedAt` and the next revision with the audit entry, only while the sync is at the
     * revision read: another PATCH in between is a CONFLICT, and what the worker keeps on the item is never touched.
     */
    async updateSync(workspaceId: string, syncId: string, read: number, changes: SyncChanges & { updatedAt: string }, audit: AuditEntry) {
      const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
      const names = Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field]));
      const values = Object.fromEntries(fields.map(([field, value], i) => [`:f${i}`, storedValue(field, value)]));
      const set = fields.map((_, i) => `#f${i} = :f${i}`).join(', ');
      const update = {
        Update: {
          TableName: db.tableName,
          Key: keys.sync(workspaceId, syncId),
          UpdateExpression: `SET ${set}, #revision = :next`,
          ConditionExpression: 'attribute_exists(PK) AND #revision = :read',
          ExpressionAttributeNames: { ...names, '#revision': 'revision' },
          ExpressionAttributeValues: { ...values, ':read': read, ':next': read + 1 },
        },
      };
      const failed = await transact(db, [update, auditPut(db, workspaceId, audit)], [0]);
      if (failed === undefined) return;
      if (!(await getItem(db, keys.sync(workspaceId, syncId)))) throw new NotFoundError(`sync ${syncId} was not found`);
      throw new ConflictError(`sync ${syncId} was changed by another request; read it again and retry`);
    },

    /** The sync, the keys it wrote, the counter and the audit entry in one transaction. */
    async deleteSync(workspaceId: string, syncId: string, audit: AuditEntry): Promise<void> {
      const remove = {
        Delete: { TableName: db.tableName, Key: keys.sync(workspaceId, syncId), ConditionExpression: 'attribute_exists(PK)' },
      };
      const written = { Delete: { TableName: db.tableName, Key: keys.syncWritten(workspaceId, syncId) } };
      const items = [remove, written, syncCounter(db, workspaceId, -1), auditPut(db, workspaceId, audit)];
      if ((await transact(db, items, [0])) === 0) throw new NotFoundError(`sync ${syncId} was not found`);
    },
  };
}

export type SyncStore = ReturnType<typeof makeSyncStore>;
export type SyncReader = ReturnType<typeof makeSyncReader>;
