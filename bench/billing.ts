import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { projectedAttributes, TABLE_DEFINITION, type GsiDefinition } from '../shared/platform/store/table.ts';

/**
 * DynamoDB on-demand billing as AWS applies it (Developer Guide: "Read and write capacity units", "Item sizes",
 * "Managing settings on DynamoDB provisioned/on-demand capacity", "Transactions: capacity management"), computed
 * from the items a request actually reads and writes, not from what DynamoDB Local reports (which bills a
 * transaction like plain writes and never counts index writes):
 * - write: 1 unit per started KB of the item (for an update or an overwrite, the larger of the item before and
 *   after; for a delete, the item deleted); 2 units per KB inside TransactWriteItems, ConditionCheck included;
 *   BatchWriteItem bills each item as its own write; a write whose condition fails is billed all the same;
 * - index: each global secondary index the item is in before or after (both key attributes present) is one more
 *   write per KB of the index's copy (the keys and the attributes it projects) whenever that copy changes: a put, an
 *   update of a projected attribute, or, when its keys change, a delete and a put (index writes are not doubled
 *   inside a transaction); an update of attributes an index does not project writes nothing there;
 * - read: 1 unit per started 4 KB of each item read strongly consistently, half that eventually consistently (the
 *   minimum even for an absent item), on the whole item whatever the projection returns; a Query sums the sizes of every item it evaluated (its filter discards items
 *   after they are billed) and rounds the sum up once.
 */

/** Bytes DynamoDB counts for one item: attribute names plus values (see `valueSize`). */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

/**
 * Bytes of one attribute value: a string's UTF-8 length; a number about one byte per two significant digits plus
 * one; binary its length; null and booleans 1; lists and maps 3 bytes plus 1 per element plus the elements (and, in
 * a map, the element names); sets the sum of their elements.
 */
export function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    // lib-dynamodb's NumberValue keeps a number as its exact string
    if ('value' in value && value.constructor?.name === 'NumberValue') return numberSize(String((value as { value: string }).value));
    let size = 3;
    for (const [name, element] of Object.entries(value))
      if (element !== undefined) size += 1 + Buffer.byteLength(name) + valueSize(element);
    return size;
  }
  throw new Error(`itemSize: no DynamoDB type for ${typeof value}`);
}

function numberSize(text: string): number {
  const [mantissa = ''] = text.replace(/^-/, '').toLowerCase().split('e');
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1 + (text.startsWith('-') ? 1 : 0);
}

const KB = 1024;
const writeUnitsOf = (size: number) => Math.max(1, Math.ceil(size / KB));
/** Read units of reading an item (or a Query's items) of `size` bytes. */
export const readUnitsOf = (size: number, consistent: boolean) => Math.max(1, Math.ceil(size / (4 * KB))) * (consistent ? 1 : 0.5);

/** What one request is billed, in request units; `indexWriteUnits` is included in `writeUnits`. */
export interface BilledUnits {
  readUnits: number;
  writeUnits: number;
  indexWriteUnits: number;
}

type Item = Record<string, unknown>;
type Key = { PK: string; SK: string };
const keyOf = (item: Item): Key => ({ PK: item[TABLE_DEFINITION.partitionKey] as string, SK: item[TABLE_DEFINITION.sortKey] as string });

/** What an index holds of an item: everything, or the table's and its own keys plus the attributes it projects. */
function indexCopy(index: GsiDefinition, item: Item): Item {
  const projected = projectedAttributes(index);
  if (!projected) return item;
  const names = [TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey, index.partitionKey, index.sortKey, ...projected];
  return Object.fromEntries(names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));
}

/**
 * Index writes for an item going from `before` to `after` (either absent), over every index of the table: billed on
 * the size of the index's copy, and only when that copy changes (an update of attributes an index does not project
 * writes nothing there).
 */
export function indexWriteUnits(before: Item | undefined, after: Item | undefined): number {
  let units = 0;
  for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
    const inIndex = (item: Item | undefined): item is Item =>
      item?.[index.partitionKey] !== undefined && item?.[index.sortKey] !== undefined;
    const was = inIndex(before) ? indexCopy(index, before) : undefined;
    const is = inIndex(after) ? indexCopy(index, after) : undefined;
    if (!was && !is) continue;
    if (was && !is) units += writeUnitsOf(itemSize(was));
    else if (!was && is) units += writeUnitsOf(itemSize(is));
    else if (was![index.partitionKey] !== is![index.partitionKey] || was![index.sortKey] !== is![index.sortKey]) {
      units += writeUnitsOf(itemSize(was!)) + writeUnitsOf(itemSize(is!));
    } else if (JSON.stringify(was) !== JSON.stringify(is)) units += writeUnitsOf(Math.max(itemSize(was!), itemSize(is!)));
  }
  return units;
}

/** One write of a request: its key, the item it puts (a Put), and how it is billed. */
interface Write {
  key: Key;
  put?: Item;
  kind: 'put' | 'update' | 'delete' | 'check';
  transactional: boolean;
}

function writesOf(operation: string, input: Item): Write[] {
  switch (operation) {
    case 'PutItem':
      return [{ key: keyOf(input.Item as Item), put: input.Item as Item, kind: 'put', transactional: false }];
    case 'UpdateItem':
      return [{ key: input.Key as Key, kind: 'update', transactional: false }];
    case 'DeleteItem':
      return [{ key: input.Key as Key, kind: 'delete', transactional: false }];
    case 'TransactWriteItems':
      return (input.TransactItems as Item[]).map((entry) => {
        const [kind, body] = Object.entries(entry)[0] as [string, Item];
        if (kind === 'Put') return { key: keyOf(body.Item as Item), put: body.Item as Item, kind: 'put', transactional: true };
        return {
          key: body.Key as Key,
          kind: kind === 'Update' ? 'update' : kind === 'Delete' ? 'delete' : 'check',
          transactional: true,
        } as Write;
      });
    case 'BatchWriteItem':
      return Object.values(input.RequestItems as Record<string, Item[]>).flatMap((requests) =>
        requests.map((request) =>
          request.PutRequest
            ? ({
                key: keyOf((request.PutRequest as Item).Item as Item),
                put: (request.PutRequest as Item).Item as Item,
                kind: 'put',
                transactional: false,
              } as Write)
            : ({ key: (request.DeleteRequest as Item).Key as Key, kind: 'delete', transactional: false } as Write),
        ),
      );
    default:
      return [];
  }
}

/** Placeholders (`#name`, `:value`) an expression uses. */
const placeholdersOf = (expression: string) => new Set(expression.match(/[#:][A-Za-z0-9_]+/g) ?? []);
const only = (record: Item | undefined, used: Set<string>) =>
  record && Object.fromEntries(Object.entries(record).filter(([name]) => used.has(name)));

/**
 * Bills DynamoDB requests by reading, with a client of its own that nobody observes, the items a request touches:
 * before it (what a write replaces) and after it (what an update leaves), for a Query every item it evaluated, and
 * for a read with a projection the whole item it returned part of (a read is billed on the whole item). Only for
 * measuring: it adds reads around each request it bills.
 */
export function makeBillingMeter(raw: DynamoDBDocumentClient, tableName: string) {
  const read = async (key: Key) => (await raw.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  async function queryEvaluated(input: Item, output: Item): Promise<number> {
    const scanned = (output.ScannedCount as number | undefined) ?? 0;
    if (scanned === 0) return 0;
    const used = placeholdersOf(input.KeyConditionExpression as string);
    const again = await raw.send(
      new QueryCommand({
        TableName: input.TableName as string,
        IndexName: input.IndexName as string | undefined,
        KeyConditionExpression: input.KeyConditionExpression as string,
        ExpressionAttributeNames: only(input.ExpressionAttributeNames as Item | undefined, used) as Record<string, string> | undefined,
        ExpressionAttributeValues: only(input.ExpressionAttributeValues as Item | undefined, used),
        ExclusiveStartKey: input.ExclusiveStartKey as Item | undefined,
        ScanIndexForward: input.ScanIndexForward as boolean | undefined,
        Limit: scanned,
      }),
    );
    return (again.Items ?? []).reduce((sum, item) => sum + itemSize(item), 0);
  }

  return {
    /** Call before sending the request; call what it answers with the request's output once it succeeded. */
    async prepare(operation: string, input: Item): Promise<(output: Item | undefined) => Promise<BilledUnits>> {
      const writes = writesOf(operation, input);
      const before = await Promise.all(writes.map((write) => read(write.key)));
      return async (output) => {
        if (writes.length > 0) {
          let writeUnits = 0;
          let indexUnits = 0;
          for (const [i, write] of writes.entries()) {
            const old = before[i];
            if (write.kind === 'check') {
              writeUnits += 2 * writeUnitsOf(old ? itemSize(old) : 0);
              continue;
            }
            const now = write.kind === 'delete' ? undefined : write.kind === 'put' ? write.put : await read(write.key);
            const size = Math.max(old ? itemSize(old) : 0, now ? itemSize(now) : 0);
            writeUnits += (write.transactional ? 2 : 1) * writeUnitsOf(size);
            indexUnits += indexWriteUnits(old, now);
          }
          return { readUnits: 0, writeUnits: writeUnits + indexUnits, indexWriteUnits: indexUnits };
        }
        // A read that failed (throttled, say) is not billed.
        return { readUnits: output ? await readUnits(operation, input, output) : 0, writeUnits: 0, indexWriteUnits: 0 };
      };
    },
  };

  /** A read is billed on the whole item, whatever its projection returns: the item as stored when one was asked. */
  async function fullSize(item: Item, projection: unknown): Promise<number> {
    if (projection === undefined) return itemSize(item);
    const stored = await read(keyOf(item));
    return stored ? itemSize(stored) : itemSize(item);
  }

  async function readUnits(operation: string, input: Item, output: Item): Promise<number> {
    switch (operation) {
      case 'GetItem':
        return readUnitsOf(
          output.Item ? await fullSize(output.Item as Item, input.ProjectionExpression) : 0,
          input.ConsistentRead === true,
        );
      case 'BatchGetItem': {
        let units = 0;
        for (const [table, request] of Object.entries(
          input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean; ProjectionExpression?: string }>,
        )) {
          const found = await Promise.all(
            ((output.Responses as Record<string, Item[]> | undefined)?.[table] ?? []).map((item) =>
              fullSize(item, request.ProjectionExpression),
            ),
          );
          const unprocessed = ((output.UnprocessedKeys as Record<string, { Keys?: Item[] }> | undefined)?.[table]?.Keys ?? []).length;
          const absent = request.Keys.length - found.length - unprocessed;
          units += [...found, ...Array<number>(Math.max(0, absent)).fill(0)].reduce(
            (sum, size) => sum + readUnitsOf(size, request.ConsistentRead === true),
            0,
          );
        }
        return units;
      }
      case 'Query':
        return readUnitsOf(await queryEvaluated(input, output), input.ConsistentRead === true);
      default:
        throw new Error(`billing: no rule for ${operation}`);
    }
  }
}

export type BillingMeter = ReturnType<typeof makeBillingMeter>;
