import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailableError } from '../errors.ts';
import { makeCursorCodec, type CursorCodec } from './cursor.ts';
import { ENTITY, keys } from './keys.ts';
import { TABLE_DEFINITION, type GsiName } from './table.ts';

/** The table and the client that reaches it. */
export interface Db {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

/** A transaction cancelled by a concurrent one or by throttling, not by a condition: retrying may succeed. */
export class TransactionContentionError extends ServiceUnavailableError {}

const CONTENTION = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionInProgressException',
  'TimeoutError',
]);

/**
 * Maps SDK failures that a client can do nothing about but wait to SERVICE_UNAVAILABLE; everything else is
 * rethrown for the caller (condition failures) or the error middleware (a 500 that never shows internals).
 */
export function translateError(error: unknown): never {
  const name = (error as { name?: string } | null)?.name ?? '';
  const code = (error as { code?: string } | null)?.code ?? '';
  if (name === 'TransactionCanceledException') {
    const reasons = ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code);
    if (!reasons.includes('ConditionalCheckFailed') && reasons.some((r) => r && CONTENTION.has(r))) throw new TransactionContentionError();
    throw error;
  }
  if (RETRYABLE.has(name) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) {
    throw new ServiceUnavailableError();
  }
  throw error;
}

/** Sends through the document client, translating retryable failures. */
export async function send<T>(db: Db, command: object): Promise<T> {
  try {
    return (await db.doc.send(command as never)) as T;
  } catch (error) {
    return translateError(error);
  }
}

/** True when a transaction was cancelled because the condition of item `index` failed. */
export function conditionFailedAt(error: unknown, index: number): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (error as { name?: string }).name === 'TransactionCanceledException' && reasons?.[index]?.Code === 'ConditionalCheckFailed';
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface QueryPageInput {
  /** Names the list a cursor belongs to (list kind, workspace, parent), so a cursor cannot be replayed elsewhere. */
  scope: string;
  pk: string;
  skPrefix?: string;
  skBetween?: [string, string];
  indexName?: GsiName;
  limit: number;
  cursor?: string | undefined;
  newestFirst?: boolean;
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;
}

/** A filtered page reads at most this many Query pages (1 MB each) before it answers what it has. */
const MAX_READS_PER_PAGE = 10;

/** Everything that runs the paginated Query pattern. */
export interface Pager {
  queryPage<T extends Record<string, unknown>>(input: QueryPageInput): Promise<Page<T>>;
}

/**
 * One page of a Query with a tamper-evident cursor. It reads `limit + 1` items, so `hasMore` is exact and the
 * last page never hands out a cursor to an empty page; with a filter it keeps reading until it has them.
 */
export function makePager(db: Db, loadCursorKey: () => Promise<Buffer>): Pager {
  // The signing key is read only when a cursor is given or handed out, so a one-page list costs one Query.
  const codec = async (): Promise<CursorCodec> => makeCursorCodec(await loadCursorKey());
  return {
    async queryPage<T extends Record<string, unknown>>(input: QueryPageInput): Promise<Page<T>> {
      const { pkName, skName } = keyNames(input.indexName);
      let startKey: Record<string, unknown> | undefined;
      if (input.cursor) {
        const cursors = await codec();
        startKey = cursors.decode(input.scope, input.cursor);
        if (startKey[pkName] !== input.pk) cursors.reject();
      }
      const names: Record<string, string> = { '#pk': pkName, ...(input.filter?.ExpressionAttributeNames ?? {}) };
      const values: Record<string, unknown> = { ':pk': input.pk, ...(input.filter?.ExpressionAttributeValues ?? {}) };
      let condition = '#pk = :pk';
      if (input.skPrefix !== undefined) {
        names['#sk'] = skName;
        values[':skp'] = input.skPrefix;
        condition += ' AND begins_with(#sk, :skp)';
      } else if (input.skBetween) {
        names['#sk'] = skName;
        values[':sklo'] = input.skBetween[0];
        values[':skhi'] = input.skBetween[1];
        condition += ' AND #sk BETWEEN :sklo AND :skhi';
      }
      const items: T[] = [];
      let reads = 0;
      do {
        const out = await send<{ Items?: T[]; LastEvaluatedKey?: Record<string, unknown> }>(
          db,
          new QueryCommand({
            TableName: db.tableName,
            IndexName: input.indexName,
            KeyConditionExpression: condition,
            FilterExpression: input.filter?.FilterExpression,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ScanIndexForward: !(input.newestFirst ?? true),
            ExclusiveStartKey: startKey,
            Limit: input.limit + 1 - items.length,
          }),
        );
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey;
        reads++;
      } while (startKey && items.length <= input.limit && reads < MAX_READS_PER_PAGE);
      if (items.length > input.limit) {
        const pageItems = items.slice(0, input.limit);
        return { items: pageItems, hasMore: true, nextCursor: (await codec()).encode(input.scope, keyOf(pageItems.at(-1)!, input.indexName)) };
      }
      // A filter that matches little may stop at the read budget: the page is short and resumes where reading stopped.
      if (startKey) return { items, hasMore: true, nextCursor: (await codec()).encode(input.scope, startKey) };
      return { items, hasMore: false, nextCursor: null };
    },
  };
}

function keyNames(indexName?: GsiName): { pkName: string; skName: string } {
  const gsi = TABLE_DEFINITION.globalSecondaryIndexes.find((index) => index.indexName === indexName);
  return gsi
    ? { pkName: gsi.partitionKey, skName: gsi.sortKey }
    : { pkName: TABLE_DEFINITION.partitionKey, skName: TABLE_DEFINITION.sortKey };
}

/** The ExclusiveStartKey that resumes right after `item`: the table key plus, for an index, the index key. */
function keyOf(item: Record<string, unknown>, indexName?: GsiName): Record<string, unknown> {
  const base = { PK: item.PK, SK: item.SK };
  if (!indexName) return base;
  const { pkName, skName } = keyNames(indexName);
  return { ...base, [pkName]: item[pkName], [skName]: item[skName] };
}

/**
 * The HMAC key that signs cursors. It is made once per table (a conditional put, so concurrent cold starts agree)
 * and read once per container.
 */
export function makeCursorKeyLoader(db: Db): () => Promise<Buffer> {
  let loaded: Promise<Buffer> | undefined;
  const load = async (): Promise<Buffer> => {
    const existing = await send<{ Item?: { key: string } }>(
      db,
      new GetCommand({ TableName: db.tableName, Key: keys.cursorSigningKey(), ConsistentRead: true }),
    );
    if (existing.Item) return Buffer.from(existing.Item.key, 'base64');
    const key = randomBytes(32).toString('base64');
    try {
      await send(
        db,
        new PutCommand({
          TableName: db.tableName,
          Item: { ...keys.cursorSigningKey(), type: ENTITY.cursorSigningKey, key, createdAt: new Date().toISOString() },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return Buffer.from(key, 'base64');
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return load();
      throw error;
    }
  };
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

/** Every item of a Query, all pages: for small, bounded sets (slugs sharing a base, the allowlist). */
export async function queryAll<T>(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<T[]> {
  const found: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await send<{ Items?: T[]; LastEvaluatedKey?: Record<string, unknown> }>(
      db,
      new QueryCommand({ ...input, TableName: db.tableName, ExclusiveStartKey: startKey }),
    );
    found.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return found;
}

/** Every sort key under a prefix (keys only, consistent). */
export async function querySortKeys(db: Db, pk: string, skPrefix: string): Promise<string[]> {
  const items = await queryAll<{ SK: string }>(db, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
    ExpressionAttributeValues: { ':pk': pk, ':p': skPrefix },
    ProjectionExpression: 'SK',
    ConsistentRead: true,
  });
  return items.map((item) => item.SK);
}

/** A transaction item that cancels the transaction unless the item at `key` exists. */
export function mustExist(db: Db, key: { PK: string; SK: string }) {
  return { ConditionCheck: { TableName: db.tableName, Key: key, ConditionExpression: 'attribute_exists(PK)' } };
}

/** Items read ahead of time in one batch with the credential, keyed by `itemKeyString`; absent items map to undefined. */
export type Prefetched = ReadonlyMap<string, Record<string, unknown> | undefined>;

/** The map key of an item key in `Prefetched`. */
export function itemKeyString(key: { PK: string; SK: string }): string {
  return `${key.PK}\u0000${key.SK}`;
}

/** The item from `prefetched` when it was read ahead, else one consistent GetItem. */
export async function readItem(
  db: Db,
  key: { PK: string; SK: string },
  prefetched?: Prefetched,
): Promise<Record<string, unknown> | undefined> {
  const id = itemKeyString(key);
  if (prefetched?.has(id)) return prefetched.get(id);
  return getItem(db, key);
}

/**
 * Reads up to 100 items in one consistent BatchGetItem round trip (unprocessed keys, under throttling, are read
 * again until none is left) and answers every requested key, absent ones as undefined.
 */
export async function batchRead(db: Db, itemKeys: readonly { PK: string; SK: string }[]): Promise<Map<string, Record<string, unknown> | undefined>> {
  const found = new Map<string, Record<string, unknown> | undefined>(itemKeys.map((key) => [itemKeyString(key), undefined]));
  let pending: Record<string, unknown>[] = [...new Map(itemKeys.map((key) => [itemKeyString(key), { PK: key.PK, SK: key.SK }])).values()];
  for (let round = 0; pending.length > 0; round++) {
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(round, 5)));
    if (round > 8) throw new ServiceUnavailableError();
    const out = await send<{ Responses?: Record<string, Record<string, unknown>[]>; UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }> }>(
      db,
      new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of out.Responses?.[db.tableName] ?? []) found.set(itemKeyString(item as { PK: string; SK: string }), item);
    pending = out.UnprocessedKeys?.[db.tableName]?.Keys ?? [];
  }
  return found;
}

/** Reads one item strongly consistently; undefined when absent. */
export async function getItem(db: Db, key: { PK: string; SK: string }): Promise<Record<string, unknown> | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(db, new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }));
  return out.Item;
}

/** Deletes items 25 at a time, sending unprocessed ones again with backoff until none is left. */
export async function batchDelete(db: Db, itemKeys: readonly { PK: string; SK: string }[]): Promise<void> {
  for (let start = 0; start < itemKeys.length; start += 25) {
    let pending: Record<string, unknown>[] = itemKeys.slice(start, start + 25).map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round > 8) throw new ServiceUnavailableError();
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(round, 5)));
      const out = await send<{ UnprocessedItems?: Record<string, Record<string, unknown>[]> }>(
        db,
        new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }),
      );
      pending = out.UnprocessedItems?.[db.tableName] ?? [];
    }
  }
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Runs one write transaction. Answers undefined when it committed, or the index of the item whose condition failed
 * when it is one of `handled` (the conditions the caller gives a meaning), so callers need no try/catch each; any
 * other failure is thrown as it is (with contention already mapped by `send`).
 */
export async function transact(db: Db, items: TransactItem[], handled: readonly number[]): Promise<number | undefined> {
  try {
    await send(db, new TransactWriteCommand({ TransactItems: items }));
    return undefined;
  } catch (error) {
    const index = handled.find((i) => conditionFailedAt(error, i));
    if (index === undefined) throw error;
    return index;
  }
}
