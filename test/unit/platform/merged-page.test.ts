import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeCursorCodec } from '../../../shared/platform/store/cursor.ts';
import { mergedPage, type MergedPageInput } from '../../../shared/platform/store/merged-page.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };
const codec = makeCursorCodec(randomBytes(32));
const cursors = async () => codec;

/**
 * A GSI1 Query over in-memory partitions (sort keys only), as DynamoDB answers one: the key condition, the order,
 * `Limit` items evaluated, and a LastEvaluatedKey whenever it stopped at the limit.
 */
function serve(partitions: Record<string, readonly string[]>) {
  const queries: QueryCommandInput[] = [];
  dynamodb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    queries.push(input);
    const values = input.ExpressionAttributeValues as Record<string, string>;
    const pk = values[':pk']!;
    let sks = [...(partitions[pk] ?? [])].sort();
    if (input.ScanIndexForward === false) sks.reverse();
    sks = sks.filter(
      (sk) =>
        (values[':skbefore'] === undefined || sk < values[':skbefore']) && (values[':skafter'] === undefined || sk > values[':skafter']),
    );
    const start = input.ExclusiveStartKey ? sks.indexOf(input.ExclusiveStartKey.GSI1SK as string) + 1 : 0;
    const items = sks.slice(start, start + input.Limit!).map((sk) => ({ PK: `T#${sk}`, SK: pk, GSI1PK: pk, GSI1SK: sk }));
    return { Items: items, ...(items.length === input.Limit && { LastEvaluatedKey: items.at(-1) }) };
  });
  return queries;
}

const list = (pk: string, keep?: (sk: string) => boolean) => ({
  pattern: { pk, indexName: 'GSI1' as const },
  ...(keep && { keep: (item: Record<string, unknown>) => keep(item.GSI1SK as string) }),
});

/** Every page to the end: the sort keys answered, page by page. */
async function allPages(input: Omit<MergedPageInput, 'cursor'>): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await mergedPage(db, cursors, { ...input, cursor });
    pages.push(page.items.map(({ item }) => item.GSI1SK as string));
    expect(page.hasMore).toBe(page.nextCursor !== null);
    cursor = page.nextCursor ?? undefined;
    expect(pages.length).toBeLessThan(200);
  } while (cursor);
  return pages;
}

beforeEach(() => dynamodb.reset());

describe('merged pages of several lists', () => {
  it('merges by sort key, newest first by default and oldest first when asked, each page resuming where the last ended', async () => {
    // Prepare
    const queries = serve({ A: ['a1', 'a4', 'a5'], B: ['a2', 'a3', 'a6'] });
    const input = { scope: 's', limit: 2, lists: [list('A'), list('B')], maxReads: 10 };
    // Act
    const newest = await allPages({ ...input, newestFirst: true });
    const oldest = await allPages({ ...input, newestFirst: false });
    // Assess
    expect(newest).toEqual([
      ['a6', 'a5'],
      ['a4', 'a3'],
      ['a2', 'a1'],
    ]);
    expect(oldest).toEqual([
      ['a1', 'a2'],
      ['a3', 'a4'],
      ['a5', 'a6'],
    ]);
    const resumed = queries.filter((q) => q.ScanIndexForward === true && q.KeyConditionExpression!.includes('>'));
    expect(resumed.length).toBeGreaterThan(0);
    expect(queries.some((q) => q.ScanIndexForward === false && q.KeyConditionExpression!.includes('<'))).toBe(true);
  });

  it('refuses a cursor made in the other order, or for another list', async () => {
    serve({ A: ['a1', 'a2', 'a3'] });
    const input = { scope: 's', limit: 1, lists: [list('A')], maxReads: 10 };
    const first = await mergedPage(db, cursors, { ...input, newestFirst: true });
    await expect(mergedPage(db, cursors, { ...input, newestFirst: false, cursor: first.nextCursor! })).rejects.toThrow(/cursor/);
    await expect(mergedPage(db, cursors, { ...input, scope: 't', newestFirst: true, cursor: first.nextCursor! })).rejects.toThrow(/cursor/);
  });

  it('answers an item found in two lists once', async () => {
    serve({ A: ['a1', 'a2'], B: ['a2', 'a3'] });
    const pages = await allPages({ scope: 's', limit: 10, lists: [list('A'), list('B')], maxReads: 10, newestFirst: true });
    expect(pages).toEqual([['a3', 'a2', 'a1']]);
  });

  it('stops a page where a list cut short by its reads stopped, answering the item it stopped on, and resumes there', async () => {
    // Prepare: list A keeps only the k items, so one read of 3 (limit + 1: 6k, 5a, 4k) stops on a kept item short of 3
    serve({ A: ['1a', '2k', '3a', '4k', '5a', '6k'], B: ['7c', '8c'] });
    const keepK = list('A', (sk) => sk.endsWith('k'));
    // Act
    const pages = await allPages({ scope: 's', limit: 2, lists: [keepK, list('B')], maxReads: 1, newestFirst: true });
    // Assess: nothing skipped (4k, the item A stopped on, is answered on the second page), nothing twice
    expect(pages).toEqual([['8c', '7c'], ['6k', '4k'], ['2k'], []]);
  });

  it('pages exactly the kept items of every list, in order, whatever the limit and read budget (fast-check)', async () => {
    const ids = fc.uniqueArray(fc.integer({ min: 10, max: 99 }), { maxLength: 12 }).map((ns) => ns.map(String));
    await fc.assert(
      fc.asyncProperty(
        fc.array(ids, { minLength: 1, maxLength: 3 }),
        fc.func(fc.boolean()),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        async (partitions, keep, limit, maxReads, newestFirst) => {
          dynamodb.reset();
          serve(Object.fromEntries(partitions.map((sks, i) => [`P${i}`, sks])));
          const lists = partitions.map((_, i) => list(`P${i}`, (sk) => keep(sk)));
          const pages = await allPages({ scope: 's', limit, lists, maxReads, newestFirst });
          const expected = [...new Set(partitions.flat())].filter((sk) => keep(sk)).sort();
          if (newestFirst) expected.reverse();
          expect(pages.flat()).toEqual(expected);
          expect(pages.every((page) => page.length <= limit)).toBe(true);
        },
      ),
      { numRuns: 200, seed: 36 },
    );
  });
});
