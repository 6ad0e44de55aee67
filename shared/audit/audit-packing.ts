import type { AuditEntry } from './audit-entry.ts';

/**
 * Audit entries that share one stored item. A reveal that resolves references audits the referencing secret and
 * each target it revealed (decisions.md v1.4: each its own `secret.reveal` entry, with `metadata.via`); they are
 * one action by one actor at one instant, so the targets' entries are stored inside the referencing entry's item
 * (`packed`) and written with it in one PutItem. The log, the webhook fan-out and every other reader see them as
 * the separate entries they are (`entriesOfItem`); only the billing differs: an item is billed per KB written, not
 * per entry, so a reveal with 3 references writes one item of about 1.3 KB (2 WRU) instead of four (4 WRU). The
 * same holds for the entries of one request's many reveals (an environment load's page, BatchGetSecretValue) and of a
 * change request's merge (one item per action).
 */
export interface AuditWrite extends AuditEntry {
  /** Entries of the same action, actor, time and account stored in this entry's item. */
  packed?: readonly AuditEntry[];
}

/** Entries one item holds besides its own, so an item stays far below DynamoDB's 400 KB (about 300 B each). */
export const PACKED_PER_ITEM = 100;

/** The stored form of a packed entry: what is not its item's own. */
interface PackedEntry {
  id: string;
  target: string;
  metadata: Record<string, unknown>;
}

/** What an item holds of its packed entries; `packedTargets` lets the log's `target` filter find them. */
export interface PackedFields {
  packed?: PackedEntry[];
  packedTargets?: string[];
}

/**
 * The items `writes` are stored as: every entry (each write's own, then those packed in it) joins the item of the
 * first earlier entry of the same action, actor, time and account that has room (`PACKED_PER_ITEM` besides its own),
 * else begins an item. So the entries of one request's reveals share items whichever write carried them: a page of
 * an environment load (30 reveals, one instant) is one item, billed per KB (about 8 WRU) rather than per entry (30).
 */
export function itemsOfWrites(writes: readonly AuditWrite[]): { own: AuditEntry; packed: AuditEntry[] }[] {
  const items: { own: AuditEntry; packed: AuditEntry[] }[] = [];
  const open = new Map<string, { own: AuditEntry; packed: AuditEntry[] }>();
  for (const { packed = [], ...own } of writes) {
    for (const entry of [own, ...packed]) {
      const key = JSON.stringify([entry.action, entry.actorSub, entry.createdAt, entry.accountId ?? null]);
      const item = open.get(key);
      if (item && item.packed.length < PACKED_PER_ITEM) {
        item.packed.push(entry);
        continue;
      }
      const begun = { own: entry, packed: [] as AuditEntry[] };
      items.push(begun);
      open.set(key, begun);
    }
  }
  return items;
}

/** The attributes an item stores of its packed entries (none for an item without). */
export function packedFields(packed: readonly AuditEntry[]): PackedFields {
  if (packed.length === 0) return {};
  return {
    packed: packed.map(({ id, target, metadata }) => ({ id, target, metadata })),
    packedTargets: [...new Set(packed.map((entry) => entry.target))],
  };
}

/**
 * The entries a stored audit item holds: its own, then each packed one with the item's action, actor, time and
 * the other attributes it stores for every entry (workspace, account); never the packing attributes themselves.
 */
export function entriesOfItem<T extends AuditEntry>(item: T & PackedFields): T[] {
  const { packed, packedTargets: _targets, ...own } = item;
  if (!packed?.length) return [own as unknown as T];
  return [own as unknown as T, ...packed.map(({ id, target, metadata }) => ({ ...own, id, target, metadata }) as unknown as T)];
}
