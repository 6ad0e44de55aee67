import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditAction } from './audit-actions.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { send, type Db } from '../platform/store/send.ts';
import { ulidCeil, ulidFloor } from '../platform/ids.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { pick } from '../platform/store/items.ts';

/** An audit entry as api.md section 2 shows it. */
export interface AuditEntry {
  id: string;
  action: AuditAction;
  actorSub: string;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Stored with the entry for the webhook fan-out (the event's `account`); never part of the API's entry. */
  accountId?: string;
}

export const AUDIT_FIELDS: readonly (keyof AuditEntry)[] = ['id', 'action', 'actorSub', 'target', 'metadata', 'createdAt'];

/**
 * The Put that records an audit entry inside the same transaction as the change it describes. Every audit write is
 * this Put, conditional on the entry not existing: IAM cannot require a condition, so this is what keeps a role
 * that may write audit entries from writing over one (docs/operations.md, "What IAM enforces on the table").
 */
export function auditPut(db: Db, workspaceId: string, entry: AuditEntry): TransactItem {
  return { Put: { TableName: db.tableName, Item: auditItem(workspaceId, entry), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** Audit PutItems one `putAuditEntries` keeps in flight at most. */
const AUDIT_PUTS_IN_FLIGHT = 25;

/**
 * Writes audit entries that go with no change of their own (reveals): `auditPut`'s Put as PutItems, up to 25 in
 * flight, each durable when it answers. Never a BatchWriteItem: a batch's puts cannot be conditional, and would
 * overwrite an entry silently. A failed condition (an entry already there: never for a fresh ULID) is thrown.
 */
export async function putAuditEntries(db: Db, workspaceId: string, entries: readonly AuditEntry[]): Promise<void> {
  const pending = [...entries];
  const lanes = Array.from({ length: Math.min(AUDIT_PUTS_IN_FLIGHT, pending.length) }, async () => {
    for (let entry = pending.shift(); entry; entry = pending.shift()) await send(db, new PutCommand(auditPut(db, workspaceId, entry).Put!));
  });
  await Promise.all(lanes);
}

/** The stored item of an audit entry. */
export function auditItem(workspaceId: string, entry: AuditEntry): Record<string, unknown> {
  return { ...keys.audit(workspaceId, entry.id), type: ENTITY.audit, workspaceId, ...entry };
}

/** Filters of `GET /audit`; times are epoch milliseconds, both ends inclusive. */
export interface AuditFilter {
  action?: string | undefined;
  target?: string | undefined;
  actorSub?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

/** Reading the audit log: newest first; a time range is a sort-key range (ids are ULIDs), the rest a filter. */
export function makeAuditStore(pager: Pager) {
  return {
    async listAudit(workspaceId: string, page: PageRequest, filter: AuditFilter = {}): Promise<Page<AuditEntry>> {
      const conditions: string[] = [];
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      for (const field of ['action', 'target', 'actorSub'] as const) {
        if (filter[field] === undefined) continue;
        conditions.push(`#${field} = :${field}`);
        names[`#${field}`] = field;
        values[`:${field}`] = filter[field];
      }
      const ranged = filter.since !== undefined || filter.until !== undefined;
      const result = await pager.queryPage<Record<string, unknown>>({
        scope: `audit:${workspaceId}:${JSON.stringify(filter)}`,
        ...patterns.auditByWorkspace(workspaceId),
        ...(ranged
          ? { skBetween: [`aud_${ulidFloor(filter.since ?? 0)}`, `aud_${ulidCeil(filter.until ?? ULID_TIME_MAX)}`] as [string, string] }
          : {}),
        ...(conditions.length
          ? { filter: { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values } }
          : {}),
        ...page,
      });
      return { ...result, items: result.items.map((item) => pick<AuditEntry>(item, AUDIT_FIELDS)!) };
    },
  };
}

/** The audit log's reads, which a service asks for by name (`Pick<AuditStore, 'listAudit'>`). */
export type AuditStore = ReturnType<typeof makeAuditStore>;

/** The largest time a ULID can hold (2^48 - 1 ms). */
const ULID_TIME_MAX = 2 ** 48 - 1;
