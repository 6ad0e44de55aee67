import type { AuditAction } from '../audit-actions.ts';
import type { TransactItem } from './conditional.ts';
import type { Pager } from './pager.ts';
import type { Page, PageRequest } from './query.ts';
import type { Db } from './send.ts';
import { ulidCeil, ulidFloor } from '../ids.ts';
import { ENTITY, keys, patterns } from './keys.ts';
import { pick } from './items.ts';

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

/** The Put that records an audit entry inside the same transaction as the change it describes. */
export function auditPut(db: Db, workspaceId: string, entry: AuditEntry): TransactItem {
  return { Put: { TableName: db.tableName, Item: auditItem(workspaceId, entry), ConditionExpression: 'attribute_not_exists(PK)' } };
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
        ...(ranged ? { skBetween: [`aud_${ulidFloor(filter.since ?? 0)}`, `aud_${ulidCeil(filter.until ?? ULID_TIME_MAX)}`] as [string, string] } : {}),
        ...(conditions.length
          ? { filter: { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values } }
          : {}),
        ...page,
      });
      return { ...result, items: result.items.map((item) => pick<AuditEntry>(item, AUDIT_FIELDS)!) };
    },
  };
}

/** The largest time a ULID can hold (2^48 - 1 ms). */
const ULID_TIME_MAX = 2 ** 48 - 1;
