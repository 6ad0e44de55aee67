import type { TransactItem } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import type { Db } from '../platform/store/send.ts';

/**
 * The writes of the reverse index of secret references (decisions.md v1.4, "Secret references";
 * docs/references-wiring.md, 3): one edge per (target path, referencing secret), put and deleted in the transaction
 * of the version that changes the references. Its readers are reference-index.ts (a module of their own: the
 * writes reach every cold start of a function that writes or reads values through the store, the readers only those
 * that answer `referencedBy` or walk dependents).
 */

/** DynamoDB's cap on the items of one transaction. */
const TRANSACTION_ITEMS = 100;

/**
 * The edge writes of a change of a secret's current references from `before` to `after`, for the transaction that
 * makes them current: a Put per added target, always (a value holds at most 50 references, so they fit beside the
 * version's own items), and a Delete per removed target when they fit in `room` items; otherwise those stay stale.
 */
export function referenceEdgeItems(
  db: Db,
  workspaceId: string,
  secretId: string,
  before: readonly string[] | undefined,
  after: readonly string[] | undefined,
  room: number,
): TransactItem[] {
  const old = new Set(before ?? []);
  const now = new Set(after ?? []);
  const puts = [...now]
    .filter((path) => !old.has(path))
    .map((path) => ({
      Put: {
        TableName: db.tableName,
        Item: { ...keys.referencedBy(workspaceId, path, secretId), type: ENTITY.secretReference, secretId, targetPath: path },
      },
    }));
  const removed = [...old].filter((path) => !now.has(path));
  const deletes = removed.length <= room - puts.length ? removed : [];
  return [
    ...puts,
    ...deletes.map((path) => ({ Delete: { TableName: db.tableName, Key: keys.referencedBy(workspaceId, path, secretId) } })),
  ];
}

/** The room a transaction of `items` leaves for edges: one more item is kept for a request's idempotency record. */
export const edgeRoom = (items: readonly unknown[]) => TRANSACTION_ITEMS - items.length - 1;

/** The edges a purge removes: those of every target the purged secret's last head referenced. */
export const edgeKeysOf = (workspaceId: string, secretId: string, references: readonly string[] | undefined) =>
  (references ?? []).map((path) => keys.referencedBy(workspaceId, path, secretId));
