import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CursorCodec } from './cursor.ts';
import { keyNames, queryInput, type Page, type PageRequest, type QueryOptions, type QueryPattern } from './query.ts';
import { send, type Db } from './send.ts';

/** One of the lists a merged page reads: a whole partition (no sort-key prefix), and what of it the caller may see. */
export interface MergedList {
  pattern: QueryPattern & { skPrefix?: undefined };
  filter?: QueryOptions['filter'];
  /** The caller's verdict on an item: the others are read past, never counted or answered. */
  keep?: (item: Record<string, unknown>) => boolean;
}

/** One page of merged lists: the lists, their order, the page asked for and how far each list may be read. */
export interface MergedPageInput extends PageRequest {
  /** Names the merged list (kind, workspace, parents, filters): a cursor is refused anywhere else, or in the other order. */
  scope: string;
  lists: readonly MergedList[];
  /** Descending sort keys (ids: newest first), else ascending. */
  newestFirst: boolean;
  /** Query pages one list may read for one page. */
  maxReads: number;
}

/** An answered item, with the index in `lists` of the list it came from. */
export interface MergedItem {
  list: number;
  item: Record<string, unknown>;
}

/** A merged page reads on past what it does not keep for at most this long. */
const BUDGET_MS = 3_000;
/** After its first read, a list asks for this many items per item still wanted (at most 1,000). */
const READ_AHEAD = 4;

/** One list read from the position on: what it kept, and where it stopped short of its end and of `limit + 1` kept items. */
async function readList(db: Db, list: MergedList, input: MergedPageInput, position: string | undefined, started: number) {
  const { skName } = keyNames(list.pattern.indexName);
  const range = position === undefined ? {} : input.newestFirst ? { skBefore: position } : { skAfter: position };
  const query = queryInput(db, list.pattern, { newestFirst: input.newestFirst, ...range, ...(list.filter && { filter: list.filter }) });
  const kept: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  let reads = 0;
  do {
    const out = await send<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>(
      db,
      new QueryCommand({
        ...query,
        ExclusiveStartKey: startKey,
        Limit: Math.min(1000, (input.limit + 1 - kept.length) * (reads === 0 ? 1 : READ_AHEAD)),
      }),
    );
    for (const item of out.Items ?? []) if (!list.keep || list.keep(item)) kept.push(item);
    startKey = out.LastEvaluatedKey;
    reads++;
  } while (startKey && kept.length <= input.limit && reads < input.maxReads && Date.now() - started < BUDGET_MS);
  // The last item evaluated: everything up to it, and it, was seen.
  const stoppedAt = startKey && kept.length <= input.limit ? (startKey[skName] as string) : undefined;
  return { kept: kept.map((item) => ({ item, at: item[skName] as string })), stoppedAt };
}

/**
 * One page of several lists that share one order and whose sort keys are unique across all of them (secret ids, in
 * GSI partitions), as if they were one list: each is read from the cursor's position (`GSI_SK < position` newest
 * first, `> position` oldest first) until it has `limit + 1` kept items or ends, and the first `limit` of them all
 * make the page; the cursor is the sort key of its last item. A list cut short by the budget bounds the page: only
 * what lies up to where it stopped is answered, and the cursor resumes there, so no item is skipped or answered
 * twice. An item found in two lists at once (an index not yet caught up with a move between them) is answered once,
 * from the first list.
 */
export async function mergedPage(db: Db, codec: () => Promise<CursorCodec>, input: MergedPageInput): Promise<Page<MergedItem>> {
  const scope = input.newestFirst ? input.scope : `${input.scope}:oldest-first`;
  const side = input.newestFirst ? 'before' : 'after';
  let position: unknown;
  if (input.cursor) {
    const cursors = await codec();
    position = cursors.decode(scope, input.cursor)[side];
    if (typeof position !== 'string') cursors.reject();
  }
  const started = Date.now();
  const read = await Promise.all(input.lists.map((list) => readList(db, list, input, position as string | undefined, started)));
  // Whether `a` comes after `b` in the page's order.
  const past = (a: string, b: string) => (input.newestFirst ? a < b : a > b);
  const cutoff = read.reduce<string | undefined>(
    (nearest, { stoppedAt }) => (stoppedAt !== undefined && (nearest === undefined || past(nearest, stoppedAt)) ? stoppedAt : nearest),
    undefined,
  );
  const merged = read
    .flatMap(({ kept }, list) => kept.map((found) => ({ ...found, list })))
    .filter(({ at }) => cutoff === undefined || !past(at, cutoff))
    .sort((a, b) => (a.at === b.at ? a.list - b.list : past(a.at, b.at) ? 1 : -1))
    .filter((found, i, all) => i === 0 || all[i - 1]!.at !== found.at);
  const answered = merged.slice(0, input.limit);
  const next = merged.length > input.limit ? answered.at(-1)!.at : cutoff;
  return {
    items: answered.map(({ list, item }) => ({ list, item })),
    hasMore: next !== undefined,
    nextCursor: next === undefined ? null : (await codec()).encode(scope, { [side]: next }),
  };
}
