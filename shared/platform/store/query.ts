import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { send, type Db } from './send.ts';
import { TABLE_DEFINITION, type GsiName } from './table.ts';

/** A named access pattern of the keys module: the partition to read, and optionally a sort-key prefix and an index. */
export interface QueryPattern {
  pk: string;
  skPrefix?: string;
  indexName?: GsiName;
}

/** What one list page asks for. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

/** One page of a list, as every list route answers it. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** How a pattern is read: a sort-key range, a filter, a projection, the order and the consistency. */
export interface QueryOptions {
  /** Only sort keys below this value (exclusive): "due before", "deleted before". */
  skBefore?: string;
  /** Only sort keys above this value (exclusive): a merged list read oldest first from its position. */
  skAfter?: string;
  skBetween?: [string, string];
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;
  projection?: readonly string[];
  consistent?: boolean;
  newestFirst?: boolean;
}

/** The partition and sort key attribute names of the table or of one of its indexes. */
export function keyNames(indexName?: GsiName): { pkName: string; skName: string } {
  const gsi = TABLE_DEFINITION.globalSecondaryIndexes.find((index) => index.indexName === indexName);
  return gsi
    ? { pkName: gsi.partitionKey, skName: gsi.sortKey }
    : { pkName: TABLE_DEFINITION.partitionKey, skName: TABLE_DEFINITION.sortKey };
}

/** The Query input of a pattern read with `options`, without paging: the one place key conditions are written. */
export function queryInput(db: Db, pattern: QueryPattern, options: QueryOptions = {}): QueryCommandInput {
  const { pkName, skName } = keyNames(pattern.indexName);
  const names: Record<string, string> = { '#pk': pkName, ...(options.filter?.ExpressionAttributeNames ?? {}) };
  const values: Record<string, unknown> = { ':pk': pattern.pk, ...(options.filter?.ExpressionAttributeValues ?? {}) };
  let condition = '#pk = :pk';
  if (pattern.skPrefix !== undefined || options.skBefore !== undefined || options.skAfter !== undefined || options.skBetween)
    names['#sk'] = skName;
  // A range narrows the pattern further, so it takes the place of the pattern's prefix (its bounds carry it).
  if (options.skBetween) {
    values[':sklo'] = options.skBetween[0];
    values[':skhi'] = options.skBetween[1];
    condition += ' AND #sk BETWEEN :sklo AND :skhi';
  } else if (options.skBefore !== undefined) {
    values[':skbefore'] = options.skBefore;
    condition += ' AND #sk < :skbefore';
  } else if (options.skAfter !== undefined) {
    values[':skafter'] = options.skAfter;
    condition += ' AND #sk > :skafter';
  } else if (pattern.skPrefix !== undefined) {
    values[':skp'] = pattern.skPrefix;
    condition += ' AND begins_with(#sk, :skp)';
  }
  const projection = projectionOf(options.projection);
  return {
    TableName: db.tableName,
    IndexName: pattern.indexName,
    KeyConditionExpression: condition,
    FilterExpression: options.filter?.FilterExpression,
    ProjectionExpression: projection.ProjectionExpression,
    ExpressionAttributeNames: { ...names, ...projection.ExpressionAttributeNames },
    ExpressionAttributeValues: values,
    ConsistentRead: options.consistent,
    ScanIndexForward: !(options.newestFirst ?? false),
  };
}

/**
 * A ProjectionExpression of plain attribute names, each behind an alias (`#p0`, `#p1`, …) so that reserved words
 * such as `status` are fine; nothing when no projection is asked for.
 */
export function projectionOf(attributes: readonly string[] | undefined): {
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
} {
  if (!attributes) return {};
  return {
    ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((attribute, i) => [`#p${i}`, attribute])),
  };
}

/**
 * Every item of a pattern, all pages (or the first `maxItems`): for small, bounded sets (slugs sharing a base, a
 * workspace's endpoints, the allowlist, a deleted secret's versions).
 */
export async function queryAll<T>(db: Db, pattern: QueryPattern, options: QueryOptions & { maxItems?: number } = {}): Promise<T[]> {
  const found: T[] = [];
  const input = queryInput(db, pattern, options);
  let startKey: Record<string, unknown> | undefined;
  do {
    const limit = options.maxItems === undefined ? undefined : options.maxItems - found.length;
    const out = await send<{ Items?: T[]; LastEvaluatedKey?: Record<string, unknown> }>(
      db,
      new QueryCommand({ ...input, ExclusiveStartKey: startKey, Limit: limit }),
    );
    found.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey && (options.maxItems === undefined || found.length < options.maxItems));
  return found;
}

/** Every sort key of a pattern (keys only, consistent). */
export async function querySortKeys(db: Db, pattern: QueryPattern): Promise<string[]> {
  const items = await queryAll<{ SK: string }>(db, pattern, { projection: ['SK'], consistent: true });
  return items.map((item) => item.SK);
}
