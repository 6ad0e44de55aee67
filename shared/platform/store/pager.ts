import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { makeCursorCodec, type CursorCodec } from './cursor.ts';
import { keyNames, queryInput, type Page, type PageRequest, type QueryOptions, type QueryPattern } from './query.ts';
import { send, type Db } from './send.ts';
import type { GsiName } from './table.ts';

/** One list page of a pattern: the pattern, how to read it, and the scope its cursors are bound to. */
export interface QueryPageInput extends QueryPattern, PageRequest, Pick<QueryOptions, 'skBetween' | 'filter' | 'newestFirst'> {
  /** Names the list a cursor belongs to (list kind, workspace, parent), so a cursor cannot be replayed elsewhere. */
  scope: string;
  /**
   * For an index that copies only some attributes: turns the items one Query read into the records to list, in the
   * same order (read from the table, and filtered on what the index does not hold). What it leaves out does not
   * count toward the page, as with a FilterExpression; each record keeps its index keys for the cursor.
   */
  hydrate?: (items: Record<string, unknown>[]) => Promise<Record<string, unknown>[]>;
  /**
   * The items the caller may see (its permissions' verdict, shared/auth): the others are read past, never counted,
   * answered or pointed at by a cursor that names them (cursors are sealed). Reads go on past hidden items within
   * the page's time budget; a page cut short by it ends with a cursor that resumes where reading stopped.
   */
  keep?: (item: Record<string, unknown>) => boolean;
}

/** A filtered page reads at most this many Query pages (1 MB each) before it answers what it has. */
const MAX_READS_PER_PAGE = 10;
/** A page filtered by permissions reads on for at most this long, well inside an API function's time. */
const KEEP_BUDGET_MS = 3_000;
/** A page filtered by permissions reads at most this many Query pages. */
const MAX_KEPT_READS = 50;
/** After its first read, a page filtered by permissions asks for this many items per item still wanted (at most 1,000). */
const KEEP_READ_AHEAD = 4;

/** Everything that runs the paginated Query pattern. */
export interface Pager {
  queryPage<T extends Record<string, unknown>>(input: QueryPageInput): Promise<Page<T>>;
  /** A cursor that resumes the list right after `item` (one of its page's items): for a page cut short. */
  cursorAfter(input: QueryPageInput, item: Record<string, unknown>): Promise<string>;
  /** The cursor codec, for a list that pages by a position of its own (a search merged from several queries). */
  codec(): Promise<CursorCodec>;
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
      let startKey = input.cursor ? await decodeCursor(await codec(), input) : undefined;
      const query = queryInput(db, input, { ...input, newestFirst: input.newestFirst ?? true });
      const items: T[] = [];
      let reads = 0;
      const started = Date.now();
      const { keep } = input;
      const mayReadOn = keep ? () => reads < MAX_KEPT_READS && Date.now() - started < KEEP_BUDGET_MS : () => reads < MAX_READS_PER_PAGE;
      do {
        const wanted = input.limit + 1 - items.length;
        const out = await send<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>(
          db,
          new QueryCommand({
            ...query,
            ExclusiveStartKey: startKey,
            Limit: keep && reads > 0 ? Math.min(1000, wanted * KEEP_READ_AHEAD) : wanted,
          }),
        );
        const found = input.hydrate ? await input.hydrate(out.Items ?? []) : (out.Items ?? []);
        items.push(...((keep ? found.filter(keep) : found) as T[]));
        startKey = out.LastEvaluatedKey;
        reads++;
      } while (startKey && items.length <= input.limit && mayReadOn());
      if (items.length > input.limit) {
        const pageItems = items.slice(0, input.limit);
        return {
          items: pageItems,
          hasMore: true,
          nextCursor: (await codec()).encode(input.scope, keyOf(pageItems.at(-1)!, input.indexName)),
        };
      }
      // A filter that matches little may stop at the read budget: the page is short and resumes where reading stopped.
      if (startKey) return { items, hasMore: true, nextCursor: (await codec()).encode(input.scope, startKey) };
      return { items, hasMore: false, nextCursor: null };
    },
    codec,
    async cursorAfter(input: QueryPageInput, item: Record<string, unknown>): Promise<string> {
      return (await codec()).encode(input.scope, keyOf(item, input.indexName));
    },
  };
}

/** The start key a cursor names, refused unless it was made for this list and lies in this partition. */
function decodeCursor(cursors: CursorCodec, input: QueryPageInput): Record<string, unknown> {
  const startKey = cursors.decode(input.scope, input.cursor!);
  if (startKey[keyNames(input.indexName).pkName] !== input.pk) cursors.reject();
  return startKey;
}

/** The ExclusiveStartKey that resumes right after `item`: the table key plus, for an index, the index key. */
function keyOf(item: Record<string, unknown>, indexName?: GsiName): Record<string, unknown> {
  const base = { PK: item.PK, SK: item.SK };
  if (!indexName) return base;
  const { pkName, skName } = keyNames(indexName);
  return { ...base, [pkName]: item[pkName], [skName]: item[skName] };
}
