import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap } from '../api.ts';
import { Empty, ErrorBox, Loading } from './components.tsx';

/** Pages a list route asks for when walking it whole: the most the API gives (decisions.md, "Envelope and pagination"). */
export const PAGE_LIMIT = '200';

/** The query of one page of a list route: `limit`, and the cursor of the page after the first. */
export function pageQuery(cursor: string | undefined, limit = PAGE_LIMIT): { limit: string; cursor?: string } {
  return cursor ? { limit, cursor } : { limit };
}

/** A page of a list route and the cursor of the next, as `client.paginate` walks them, one "Load more" at a time. */
export interface Paged<T> {
  items: T[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
}

type PageAnswer<T> = {
  data?: { data: T[]; meta: { page?: { nextCursor: string | null; hasMore?: boolean } } };
  error?: unknown;
  response: Response;
};

/**
 * Pages of a list route: the first at once, the next on `loadMore`; `reload` starts again (after a change). Only the
 * latest request counts: an earlier one that answers after it (a filter changed while a page was on its way) is
 * dropped, so an old page never lands in the new list.
 */
export function usePaged<T>(fetchPage: (cursor: string | undefined) => Promise<PageAnswer<T>>, deps: unknown[]): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  const load = async (from: string | undefined, replace: boolean) => {
    const ticket = ++latest.current;
    const current = () => ticket === latest.current;
    setLoading(true);
    setError(null);
    try {
      const answer = await fetchPage(from);
      if (!current()) return;
      // An error answer throws the API's code and message (an ApiError), shown below the list.
      if (!answer.data) unwrap(answer as never);
      const page = answer.data!;
      setItems((previous) => (replace ? page.data : [...previous, ...page.data]));
      setCursor(page.meta.page?.nextCursor ?? null);
    } catch (caught) {
      if (current()) setError(caught);
    } finally {
      if (current()) setLoading(false);
    }
  };
  useEffect(() => {
    setItems([]);
    void load(undefined, true);
  }, [...deps, generation]);
  return {
    items,
    loading,
    error,
    hasMore: typeof cursor === 'string',
    loadMore: () => typeof cursor === 'string' && void load(cursor, false),
    reload: () => setGeneration((g) => g + 1),
  };
}

/** The "Load more" button of a paged list, with its loading state and error. */
export function LoadMore<T>({ paged }: { paged: Paged<T> }) {
  return (
    <div class="load-more">
      <ErrorBox error={paged.error} />
      {paged.loading && <Loading what="more" />}
      {!paged.loading && paged.hasMore && (
        <button type="button" onClick={paged.loadMore}>
          Load more
        </button>
      )}
    </div>
  );
}

export interface PagedTableProps<T> {
  paged: Paged<T>;
  /** What is loading ("Loading {what}…"). */
  what: string;
  /** What an empty list says. */
  empty: ComponentChildren;
  /** The column headings; `actions` adds a last one, named for screen readers only. */
  head: string[];
  actions?: boolean;
  tableClass?: string;
  /** One `<tr>` (with its key) an item. */
  row: (item: T) => VNode;
  /** The rows the list holds, when the view lays its own changes over the pages (default: the pages'). */
  items?: T[];
  /** The rows on screen, when fewer are shown than held (a filter, a slice per frame; default: `items`). */
  shown?: T[];
  /** Shown above the table when it has rows (a count). */
  summary?: ComponentChildren;
  /** The list no longer stands (its subject was deleted): no table, no "Load more". */
  gone?: boolean;
  /** How a failure shows when nothing is listed (default: in "Load more"). */
  failure?: (error: unknown) => ComponentChildren;
}

/** A paged list as a table, with its three states: loading, empty, and the API's error, then "Load more". */
export function PagedTable<T>({
  paged,
  what,
  empty,
  head,
  actions,
  tableClass,
  row,
  items = paged.items,
  shown = items,
  summary,
  gone,
  failure,
}: PagedTableProps<T>) {
  const failed = failure !== undefined && paged.error !== null && items.length === 0;
  return (
    <>
      {paged.loading && items.length === 0 && <Loading what={what} />}
      {!paged.loading && !paged.error && items.length === 0 && <Empty>{empty}</Empty>}
      {items.length > 0 && summary}
      {items.length > 0 && !gone && (
        <table class={tableClass}>
          <thead>
            <tr>
              {head.map((heading) => (
                <th key={heading}>{heading}</th>
              ))}
              {actions && (
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>{shown.map(row)}</tbody>
        </table>
      )}
      {failed ? failure(paged.error) : !gone && <LoadMore paged={paged} />}
    </>
  );
}
