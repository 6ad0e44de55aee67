import { BatchGetCommand, BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailableError } from '../errors.ts';
import { itemKeyString, type ItemKey, type Prefetched } from '../prefetch.ts';
import { projectionOf } from './query.ts';
import { send, type Db } from './send.ts';

/** Reads one item, strongly consistently unless `consistent: false` (half the read units); undefined when absent. */
export async function getItem(db: Db, key: ItemKey, options: { consistent?: boolean } = {}): Promise<Record<string, unknown> | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    db,
    new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: options.consistent ?? true }),
  );
  return out.Item;
}

/** The item from `prefetched` when it was read ahead, else one consistent GetItem. */
export async function readItem(db: Db, key: ItemKey, prefetched?: Prefetched): Promise<Record<string, unknown> | undefined> {
  const id = itemKeyString(key);
  if (prefetched?.has(id)) return prefetched.get(id);
  return getItem(db, key);
}

/** Backs off before round `round` of a batch call that left work unprocessed; gives up as SERVICE_UNAVAILABLE. */
async function backOff(round: number): Promise<void> {
  if (round > 8) throw new ServiceUnavailableError();
  if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(round, 5)));
}

/** BatchGetItem requests one `batchRead` keeps in flight at most. */
const BATCH_READS_IN_FLIGHT = 4;

/**
 * Reads items with BatchGetItem, 100 keys a request (up to four requests in parallel), consistently unless told otherwise
 * (unprocessed keys, under throttling, are read again until none is left), and answers every requested key, absent
 * ones as undefined.
 */
export async function batchRead(
  db: Db,
  itemKeys: readonly ItemKey[],
  options: { consistent?: boolean; projection?: readonly string[] } = {},
): Promise<Map<string, Record<string, unknown> | undefined>> {
  const found = new Map<string, Record<string, unknown> | undefined>(itemKeys.map((key) => [itemKeyString(key), undefined]));
  const unique = [...new Map(itemKeys.map((key) => [itemKeyString(key), { PK: key.PK, SK: key.SK }])).values()];
  // The keys are always read too: the answers are matched to their keys.
  const projection = projectionOf(options.projection && [...new Set(['PK', 'SK', ...options.projection])]);
  const readChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk;
    for (let round = 0; pending.length > 0; round++) {
      await backOff(round);
      const out = await send<{
        Responses?: Record<string, Record<string, unknown>[]>;
        UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }>;
      }>(
        db,
        new BatchGetCommand({
          RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: options.consistent ?? true, ...projection } },
        }),
      );
      for (const item of out.Responses?.[db.tableName] ?? []) found.set(itemKeyString(item as unknown as ItemKey), item);
      pending = out.UnprocessedKeys?.[db.tableName]?.Keys ?? [];
    }
  };
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < unique.length; start += 100) chunks.push(unique.slice(start, start + 100));
  // A few requests in flight at once: a long list (an endpoint's whole log) must not burst into hundreds.
  const lanes = Array.from({ length: Math.min(BATCH_READS_IN_FLIGHT, chunks.length) }, async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) await readChunk(chunk);
  });
  await Promise.all(lanes);
  return found;
}

/**
 * Sends write requests (PutRequest, DeleteRequest) 25 at a time, four requests in flight, sending unprocessed ones
 * again with backoff until none is left; gives up with SERVICE_UNAVAILABLE (the others may have been written). Not conditional: for items nothing else writes (fresh audit
 * entries, versions of a deleted secret).
 */
export async function batchWrite(db: Db, requests: readonly Record<string, unknown>[]): Promise<void> {
  let stopped = false;
  const writeChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk;
    for (let round = 0; pending.length > 0; round++) {
      await backOff(round);
      const out = await send<{ UnprocessedItems?: Record<string, Record<string, unknown>[]> }>(
        db,
        new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }),
      );
      pending = out.UnprocessedItems?.[db.tableName] ?? [];
    }
  };
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < requests.length; start += 25) chunks.push(requests.slice(start, start + 25));
  // A few requests in flight at once, as reads go (a purge of 1,000 versions is 40 batches: a Lambda's time matters).
  const lanes = Array.from({ length: Math.min(BATCH_READS_IN_FLIGHT, chunks.length) }, async () => {
    for (let chunk = chunks.shift(); chunk && !stopped; chunk = chunks.shift()) {
      try {
        await writeChunk(chunk);
      } catch (error) {
        stopped = true;
        throw error;
      }
    }
  });
  // Every lane ends before the call does (a failed one stops taking chunks with the others): nothing runs on after it.
  const ended = await Promise.allSettled(lanes);
  const failed = ended.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Deletes items 25 at a time (see `batchWrite`). */
export async function batchDelete(db: Db, itemKeys: readonly ItemKey[]): Promise<void> {
  await batchWrite(
    db,
    itemKeys.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } })),
  );
}
