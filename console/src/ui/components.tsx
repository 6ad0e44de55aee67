import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describeError, unwrap } from '../api.ts';

/**
 * The API's code and message, plainly (a FORBIDDEN included). A 401 needs nothing here: the session's client takes
 * the person back to sign-in, which shows it (main.tsx).
 */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const { code, message } = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>{code}</strong> {message}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" role="status">Loading {what}…</p>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted empty">{children}</p>;
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

type PageAnswer<T> = { data?: { data: T[]; meta: { page?: { nextCursor: string | null; hasMore?: boolean } } }; error?: unknown; response: Response };

/** Pages of a list route: the first at once, the next on `loadMore`; `reload` starts again (after a change). */
export function usePaged<T>(fetchPage: (cursor: string | undefined) => Promise<PageAnswer<T>>, deps: unknown[]): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);

  const load = async (from: string | undefined, replace: boolean) => {
    setLoading(true);
    setError(null);
    try {
      const answer = await fetchPage(from);
      // An error answer throws the API's code and message (an ApiError), shown below the list.
      if (!answer.data) unwrap(answer as never);
      const page = answer.data!;
      setItems((previous) => (replace ? page.data : [...previous, ...page.data]));
      setCursor(page.meta.page?.nextCursor ?? null);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
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

/** A destructive action asks first; its confirming button is named `Confirm` (decisions.md, "Console"). */
export function ConfirmDialog({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-label={text}>
      <p>{text}</p>
      <button type="button" class="danger" onClick={onConfirm}>
        Confirm
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** Runs an action with busy and error state, for buttons and forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

/** A value copied to the clipboard on request, with a short confirmation. */
export function CopyButton({ value, label = 'Copy' }: { value: () => string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(value());
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/** A timestamp as the console shows it: the ISO date and time, to the second, in UTC. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  return <time dateTime={at}>{at.replace('T', ' ').slice(0, 19)} UTC</time>;
}
