import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from './audit-entry.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import type { Pager, QueryPageInput } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { send, type Db } from '../platform/store/send.ts';
import { ulidCeil, ulidFloor } from '../platform/ids.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { pick } from '../platform/store/items.ts';
import { entriesOfItem, itemsOfWrites, packedFields, type AuditWrite, type PackedFields } from './audit-packing.ts';

export type { AuditEntry } from './audit-entry.ts';

export const AUDIT_FIELDS: readonly (keyof AuditEntry)[] = ['id', 'action', 'actorSub', 'target', 'metadata', 'createdAt'];

/**
 * The Put that records an audit entry inside the same transaction as the change it describes. Every audit write is
 * this Put, conditional on the entry not existing: IAM cannot require a condition, so this is what keeps a role
 * that may write audit entries from writing over one (docs/operations.md, "What IAM enforces on the table").
 */
export function auditPut(db: Db, workspaceId: string, entry: AuditEntry, packed: readonly AuditEntry[] = []): TransactItem {
  const Item = { ...auditItem(workspaceId, entry), ...packedFields(packed) };
  return { Put: { TableName: db.tableName, Item, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** Audit PutItems one `putAuditEntries` keeps in flight at most. */
const AUDIT_PUTS_IN_FLIGHT = 25;

/**
 * Writes audit entries that go with no change of their own (reveals): as few items as they pack into (entries of one
 * action, actor, time and account share an item, up to 101: audit-packing.ts), each `auditPut`'s conditional Put as a PutItem, up to 25 in flight, each durable when it
 * answers. Never a BatchWriteItem: a batch's puts cannot be conditional, and would overwrite an entry silently. A
 * failed condition (an entry already there: never for a fresh ULID) is thrown.
 */
export async function putAuditEntries(db: Db, workspaceId: string, writes: readonly AuditWrite[]): Promise<void> {
  const pending = itemsOfWrites(writes);
  const lanes = Array.from({ length: Math.min(AUDIT_PUTS_IN_FLIGHT, pending.length) }, async () => {
    for (let item = pending.shift(); item; item = pending.shift())
      await send(db, new PutCommand(auditPut(db, workspaceId, item.own, item.packed).Put!));
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

/**
 * Reading the audit log: newest first; a time range is a sort-key range (ids are ULIDs), the rest a filter. An item
 * holding packed entries (audit-packing.ts) answers each of them; `target` also matches a packed entry's, and the
 * page counts entries, not items: a page that ends inside an item resumes there (`resumeCursor`).
 */
export function makeAuditStore(pager: Pager) {
  return {
    async listAudit(workspaceId: string, page: PageRequest, filter: AuditFilter = {}): Promise<Page<AuditEntry>> {
      const conditions: string[] = [];
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      for (const field of ['action', 'target', 'actorSub'] as const) {
        if (filter[field] === undefined) continue;
        conditions.push(field === 'target' ? '(#target = :target OR contains(#packedTargets, :target))' : `#${field} = :${field}`);
        names[`#${field}`] = field;
        values[`:${field}`] = filter[field];
      }
      if (filter.target !== undefined) names['#packedTargets'] = 'packedTargets';
      const ranged = filter.since !== undefined || filter.until !== undefined;
      const input: QueryPageInput = {
        scope: `audit:${workspaceId}:${JSON.stringify(filter)}`,
        ...patterns.auditByWorkspace(workspaceId),
        ...(ranged
          ? { skBetween: [`aud_${ulidFloor(filter.since ?? 0)}`, `aud_${ulidCeil(filter.until ?? ULID_TIME_MAX)}`] as [string, string] }
          : {}),
        ...(conditions.length
          ? { filter: { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values } }
          : {}),
        limit: page.limit,
      };
      const within = page.cursor?.startsWith(WITHIN) ? await decodeWithin(pager, input.scope, page.cursor) : undefined;
      const result = await pager.queryPage<StoredAudit>({ ...input, cursor: within ? within.cursor : page.cursor });
      const entries: AuditEntry[] = [];
      for (const [at, item] of result.items.entries()) {
        const all = entriesOfItem(item).filter((entry) => filter.target === undefined || entry.target === filter.target);
        const skipped = at === 0 && within?.id === item.id ? within.skip : 0;
        const taken = all.slice(skipped, skipped + page.limit - entries.length);
        entries.push(...taken.map((entry) => pick<AuditEntry>(entry as StoredAudit, AUDIT_FIELDS)!));
        if (entries.length < page.limit) continue;
        const ended = skipped + taken.length === all.length;
        if (ended && at === result.items.length - 1) return { items: entries, hasMore: result.hasMore, nextCursor: result.nextCursor };
        if (ended) return { items: entries, hasMore: true, nextCursor: await pager.cursorAfter(input, item) };
        return { items: entries, hasMore: true, nextCursor: await encodeWithin(pager, input, item, skipped + taken.length) };
      }
      return { items: entries, hasMore: result.hasMore, nextCursor: result.nextCursor };
    },
  };
}

/** An audit item as read. */
type StoredAudit = Record<string, unknown> & AuditEntry & PackedFields;

/** A cursor that resumes inside an item starts with this (never in a pager's cursor: base64url and a dot). */
const WITHIN = '~';

/**
 * A cursor that resumes inside `item`, past the `skip` entries answered: the list's cursor positioned just before
 * the item (its sort key and a character above every ULID's, so the next newest-first read starts with it; a
 * position need not be an item's), with the item's id and the count, sealed for this list.
 */
async function encodeWithin(pager: Pager, input: QueryPageInput, item: Record<string, unknown>, skip: number): Promise<string> {
  const cursor = await pager.cursorAfter(input, { PK: item.PK, SK: `${item.SK as string}~` });
  return WITHIN + (await pager.codec()).encode(`${input.scope}:within`, { cursor, id: item.id, skip });
}

async function decodeWithin(pager: Pager, scope: string, cursor: string): Promise<{ cursor: string; id: string; skip: number }> {
  const codec = await pager.codec();
  const { cursor: inner, id, skip } = codec.decode(`${scope}:within`, cursor.slice(WITHIN.length));
  if (typeof inner !== 'string' || typeof id !== 'string' || !Number.isSafeInteger(skip) || (skip as number) < 1) return codec.reject();
  return { cursor: inner, id, skip: skip as number };
}

/** The audit log's reads, which a service asks for by name (`Pick<AuditStore, 'listAudit'>`). */
export type AuditStore = ReturnType<typeof makeAuditStore>;

/** The largest time a ULID can hold (2^48 - 1 ms). */
const ULID_TIME_MAX = 2 ** 48 - 1;
