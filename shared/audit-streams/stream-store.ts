import { type AuditEntry, auditPut, putAuditEntries } from '../audit/index.ts';
import type { SealedValue } from '../platform/crypto/envelope.ts';
import { ConflictError, LimitExceededError, NotFoundError } from '../platform/errors.ts';
import { countBy, transact } from '../platform/store/conditional.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import { fromStored, toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import { type AuditStreamRecord, STREAM_CREDENTIALS } from './stream-records.ts';

/**
 * Audit streams (decisions.md v1.4, "Audit streams and tamper evidence"): one item each in the workspace partition
 * (keys.auditStream), under the workspace's conditional counter. The API's changes are UpdateItems of the fields they
 * change under the revision read, never a whole Put, so what the delivery will keep on the item stays its own. The
 * item's `type` names its entity, so the stream's type is stored as `streamType`.
 */

/** At most this many audit streams per workspace: each audit entry goes to every one of them. */
export const MAX_AUDIT_STREAMS = 10;

/**
 * The fields of a PATCH, as their stored values (credentials already sealed, the whole set of them); `failingSince:
 * null` removes the delivery's failure window (a stream enabled again starts a new one).
 */
export type StreamChanges = Partial<Pick<AuditStreamRecord, 'status' | 'sealed'>> & {
  url?: string;
  site?: string;
  headers?: string[];
  failingSince?: null;
};

const RECORD_FIELDS = [
  'id',
  'accountId',
  'url',
  'site',
  'headers',
  'secretHint',
  'status',
  'createdAt',
  'updatedAt',
  'failingSince',
  'lastDeliveredAt',
  'lastError',
] as const;

/** The sealed credentials as stored: each one binary (a third smaller than base64). */
const storedSealed = (sealed: AuditStreamRecord['sealed']) =>
  Object.fromEntries(Object.entries(sealed).map(([name, value]) => [name, toStored(value as SealedValue)]));

/** The stored attributes of a field's value: the sealed credentials as binary, the rest as they are. */
const storedValue = (field: string, value: unknown) => (field === 'sealed' ? storedSealed(value as AuditStreamRecord['sealed']) : value);

/**
 * The stream of a stored item (undefined for none, or an item of another entity): the fields its type has, its
 * sealed credentials opened into their envelope form.
 */
export function auditStreamOfItem(item: Record<string, unknown> | undefined): AuditStreamRecord | undefined {
  if (!item || item.type !== ENTITY.auditStream) return undefined;
  const record = Object.fromEntries(RECORD_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]]));
  const stored = (item.sealed ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const sealed = Object.fromEntries(STREAM_CREDENTIALS.flatMap((name) => (stored[name] ? [[name, fromStored(stored[name])]] : [])));
  return { ...record, type: item.streamType, revision: Number(item.revision), sealed } as unknown as AuditStreamRecord;
}

/** The per-workspace counter's change in a transaction: creation counts up under the cap, deletion down. */
function streamCounter(db: Db, workspaceId: string, delta: 1 | -1) {
  const cap = delta === 1 ? { max: MAX_AUDIT_STREAMS } : {};
  return countBy(db, keys.auditStreamCount(workspaceId), { delta, type: ENTITY.auditStreamCount, ...cap });
}

/** Reading a workspace's streams whole: what the delivery's fan-out will route audit entries with, no page. */
export function makeAuditStreamReader(db: Db) {
  return {
    /** Every audit stream of the workspace (at most MAX_AUDIT_STREAMS), unpaged; `consistent` sees a change just made. */
    async listAuditStreamsOfWorkspace(workspaceId: string, consistent = false): Promise<AuditStreamRecord[]> {
      const items = await queryAll<Record<string, unknown>>(db, patterns.auditStreamsByWorkspace(workspaceId), {
        maxItems: MAX_AUDIT_STREAMS,
        consistent,
      });
      return items.map((item) => auditStreamOfItem(item)).filter((stream) => stream !== undefined);
    },
  };
}

/** What the audit streams route group does with streams: reads, creation under the cap, changes, deletion. */
export function makeAuditStreamStore(db: Db, pager: Pager) {
  return {
    async getAuditStream(workspaceId: string, streamId: string): Promise<AuditStreamRecord | undefined> {
      return auditStreamOfItem(await getItem(db, keys.auditStream(workspaceId, streamId), { consistent: true }));
    },

    /** The workspace's streams, newest first, one page at a time. */
    async listAuditStreamPage(workspaceId: string, page: PageRequest): Promise<Page<AuditStreamRecord>> {
      const result = await pager.queryPage({
        scope: `audit-streams:${workspaceId}`,
        ...patterns.auditStreamsByWorkspace(workspaceId),
        keep: (item) => auditStreamOfItem(item) !== undefined,
        ...page,
      });
      return { ...result, items: result.items.map((item) => auditStreamOfItem(item)!) };
    },

    /** The stream, the cap counter and the audit entry together; the 11th stream is LIMIT_EXCEEDED. */
    async createAuditStream(workspaceId: string, stream: AuditStreamRecord, audit: AuditEntry): Promise<void> {
      const { sealed, type, ...record } = stream;
      const item = { ...keys.auditStream(workspaceId, stream.id), ...record, type: ENTITY.auditStream, streamType: type, workspaceId };
      const put = {
        Put: { TableName: db.tableName, Item: { ...item, sealed: storedSealed(sealed) }, ConditionExpression: 'attribute_not_exists(PK)' },
      };
      const failed = await transact(db, [streamCounter(db, workspaceId, 1), put, auditPut(db, workspaceId, audit)], [0]);
      if (failed === 0) throw new LimitExceededError(`audit streams: a workspace has at most ${MAX_AUDIT_STREAMS} audit streams`);
    },

    /**
     * SETs the changed fields, `updatedAt` and the next revision with the audit entry, only while the stream is at the
     * revision read: another PATCH in between is a CONFLICT. A field changed to null is REMOVEd: an attribute stored
     * as NULL would still exist for the delivery's `if_not_exists` (stream-health.ts).
     */
    async updateAuditStream(
      workspaceId: string,
      streamId: string,
      read: number,
      changes: StreamChanges & { updatedAt: string },
      audit: AuditEntry,
    ): Promise<void> {
      const fields = Object.entries(changes).filter(([, value]) => value !== undefined && value !== null);
      const removed = Object.entries(changes).filter(([, value]) => value === null);
      const names = Object.fromEntries([...fields, ...removed].map(([field], i) => [`#f${i}`, field]));
      const values = Object.fromEntries(fields.map(([field, value], i) => [`:f${i}`, storedValue(field, value)]));
      const sets = `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}, #revision = :next`;
      const removes = removed.length > 0 ? ` REMOVE ${removed.map((_, i) => `#f${fields.length + i}`).join(', ')}` : '';
      const update = {
        Update: {
          TableName: db.tableName,
          Key: keys.auditStream(workspaceId, streamId),
          UpdateExpression: sets + removes,
          ConditionExpression: 'attribute_exists(PK) AND #revision = :read',
          ExpressionAttributeNames: { ...names, '#revision': 'revision' },
          ExpressionAttributeValues: { ...values, ':read': read, ':next': read + 1 },
        },
      };
      if ((await transact(db, [update, auditPut(db, workspaceId, audit)], [0])) === undefined) return;
      if (!(await getItem(db, keys.auditStream(workspaceId, streamId)))) throw new NotFoundError(`audit stream ${streamId} was not found`);
      throw new ConflictError(`audit stream ${streamId} was changed by another request; read it again and retry`);
    },

    /** The stream, the counter and the audit entry in one transaction. */
    async deleteAuditStream(workspaceId: string, streamId: string, audit: AuditEntry): Promise<void> {
      const remove = {
        Delete: { TableName: db.tableName, Key: keys.auditStream(workspaceId, streamId), ConditionExpression: 'attribute_exists(PK)' },
      };
      const items = [remove, streamCounter(db, workspaceId, -1), auditPut(db, workspaceId, audit)];
      if ((await transact(db, items, [0])) === 0) throw new NotFoundError(`audit stream ${streamId} was not found`);
    },

    /** A test's audit entry alone (a test changes nothing of the stream): one conditional PutItem, durable when it answers. */
    async putStreamTestAudit(workspaceId: string, audit: AuditEntry): Promise<void> {
      await putAuditEntries(db, workspaceId, [audit]);
    },
  };
}

export type AuditStreamStore = ReturnType<typeof makeAuditStreamStore>;
export type AuditStreamReader = ReturnType<typeof makeAuditStreamReader>;
