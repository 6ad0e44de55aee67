import { type AuditEntry, auditPut } from '../audit/index.ts';
import { transact, type TransactItem } from '../platform/store/conditional.ts';
import { ENTITY, gsi1, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import { fromStored, toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import {
  ChangeRequestChangedError,
  expiryTtl,
  type ChangeRequestRecord,
  type RequestPlace,
  type StoredChange,
} from './change-request-records.ts';

/** An environment as a request needs it: where it is, and how many approvals its review policy asks (1 without one). */
export interface RequestEnvironment extends RequestPlace {
  requiredApprovals: number;
}

/** A version write prepared by the secrets feature, to commit with the merge (shared/secrets, prepareVersionWrite). */
export interface PreparedWrite {
  items: TransactItem[];
  /** Its key item's index in `items`: the condition that holds only while the key is at its base version. */
  keyItemAt: number;
  /** Its version item's (which must not exist yet): a failed one means the key moved too. */
  versionAt?: number | undefined;
  /** Its audit entry, written packed with the merge's other entries of its action (not one of `items`). */
  audit: AuditEntry;
}

const RECORD_FIELDS = [
  'id',
  'environmentId',
  'projectId',
  'projectSlug',
  'envSlug',
  'title',
  'description',
  'status',
  'authorSub',
  'reviews',
  'createdAt',
  'updatedAt',
  'revision',
] as const satisfies readonly (keyof ChangeRequestRecord)[];

function toRecord(item: Record<string, unknown> | undefined): ChangeRequestRecord | undefined {
  if (!item) return undefined;
  const record = Object.fromEntries(RECORD_FIELDS.map((field) => [field, item[field] ?? null])) as unknown as ChangeRequestRecord;
  const changes = (item.changes as (Omit<StoredChange, 'sealed'> & { sealed?: Record<string, unknown> })[]).map(
    ({ sealed, ...change }) => ({
      ...change,
      ...(sealed && { sealed: fromStored(sealed) }),
    }),
  );
  return { ...record, changes, reviews: (item.reviews as ChangeRequestRecord['reviews']) ?? [] };
}

/** Change requests: one item each (keys.changeRequest), on GSI1 in their environment's list; writes in transactions. */
export function makeChangeRequestStore(db: Db, pager: Pager) {
  const item = (workspaceId: string, record: ChangeRequestRecord) => ({
    ...keys.changeRequest(workspaceId, record.id),
    ...gsi1.changeRequest(workspaceId, record.environmentId, record.id),
    type: ENTITY.changeRequest,
    workspaceId,
    ...record,
    changes: record.changes.map(({ sealed, ...change }) => ({ ...change, ...(sealed && { sealed: toStored(sealed) }) })),
    // Only an open request expires: a merged or closed one stays as the record of what happened.
    ...(record.status === 'open' && { ttl: expiryTtl(record.createdAt) }),
  });
  /** The request's new state, holding only while it is as it was read (its revision). */
  const replace = (workspaceId: string, next: ChangeRequestRecord, read: ChangeRequestRecord): TransactItem => ({
    Put: {
      TableName: db.tableName,
      Item: item(workspaceId, next),
      ConditionExpression: '#revision = :revision',
      ExpressionAttributeNames: { '#revision': 'revision' },
      ExpressionAttributeValues: { ':revision': read.revision },
    },
  });
  return {
    /** The environment a request proposes changes to; undefined when it does not exist. */
    async getRequestEnvironment(workspaceId: string, environmentId: string): Promise<RequestEnvironment | undefined> {
      const env = await getItem(db, keys.environment(workspaceId, environmentId));
      if (!env) return undefined;
      const policy = env.reviewPolicy as { requiredApprovals?: number } | undefined;
      return {
        environmentId,
        projectId: env.projectId as string,
        projectSlug: env.projectSlug as string,
        envSlug: env.slug as string,
        requiredApprovals: policy?.requiredApprovals ?? 1,
      };
    },

    /** Writes a new request with its audit entry. */
    async putChangeRequest(workspaceId: string, record: ChangeRequestRecord, audit: AuditEntry): Promise<void> {
      const put = { Put: { TableName: db.tableName, Item: item(workspaceId, record), ConditionExpression: 'attribute_not_exists(PK)' } };
      await transact(db, [put, auditPut(db, workspaceId, audit)], []);
    },

    async getChangeRequest(workspaceId: string, id: string): Promise<ChangeRequestRecord | undefined> {
      return toRecord(await getItem(db, keys.changeRequest(workspaceId, id), { consistent: true }));
    },

    /** An environment's requests, newest first, those `keep` keeps (a status, the caller's view). */
    async listChangeRequests(
      workspaceId: string,
      environmentId: string,
      page: PageRequest,
      keep?: (record: ChangeRequestRecord) => boolean,
    ): Promise<Page<ChangeRequestRecord>> {
      const result = await pager.queryPage({
        scope: `change-requests:${workspaceId}:${environmentId}`,
        ...patterns.changeRequestsByEnvironment(workspaceId, environmentId),
        ...(keep && { keep: (found: Record<string, unknown>) => keep(toRecord(found)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((found) => toRecord(found)!) };
    },

    /**
     * Writes the request's next state (a review, a close) with its audit entry, or, for a merge, with every prepared
     * version write too: one transaction, all or nothing. Answers the index of the write whose key moved since it
     * was read (its condition failed), or undefined when it committed; ChangeRequestChangedError when the request
     * itself changed.
     */
    async updateChangeRequest(
      workspaceId: string,
      next: ChangeRequestRecord,
      read: ChangeRequestRecord,
      audit: AuditEntry,
      writes: readonly PreparedWrite[] = [],
    ): Promise<number | undefined> {
      const items = [replace(workspaceId, next, read), auditPut(db, workspaceId, audit), ...packedAuditPuts(db, workspaceId, writes)];
      // Where each write's conditions are, and which write each one belongs to.
      const conditions = new Map<number, number>();
      writes.forEach((write, i) => {
        for (const at of [write.keyItemAt, write.versionAt]) if (at !== undefined) conditions.set(items.length + at, i);
        items.push(...write.items);
      });
      const failed = await transact(db, items, [0, ...conditions.keys()], { contention: 'handled' });
      if (failed === undefined) return undefined;
      const moved = conditions.get(failed);
      if (moved === undefined) throw new ChangeRequestChangedError();
      return moved;
    },
  };
}

export type ChangeRequestStore = ReturnType<typeof makeChangeRequestStore>;

/**
 * The merged writes' audit entries, one item per action (`secret.create`, `secret.rotate`, `secret.delete`) with the
 * others of that action packed in it (audit-packing.ts): all of one actor at one instant. So a merge of 20 changes
 * spends at most 3 of the transaction's items on them, not 20; the log and the events still see each entry.
 */
function packedAuditPuts(db: Db, workspaceId: string, writes: readonly PreparedWrite[]): TransactItem[] {
  const byAction = Map.groupBy(
    writes.map((write) => write.audit),
    (entry) => entry.action,
  );
  return [...byAction.values()].map(([own, ...packed]) => auditPut(db, workspaceId, own!, packed));
}
