import { useEffect, useState } from 'preact/hooks';

/** What an async lookup answered, with its loading and error state. */
export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * One answer (not a list): loaded at once, and again on `reload` or when `deps` change. A later load wins: an answer
 * that arrives after the view moved on is dropped. `keep` leaves the last value on screen while the next loads (a
 * refresh); without it a change of `deps` starts from nothing.
 */
export function useLoaded<T>(load: () => Promise<T>, deps: unknown[], { keep = false } = {}): Loaded<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    setError(null);
    if (!keep) setValue(undefined);
    load()
      .then((answer) => current && setValue(answer))
      .catch((caught: unknown) => current && setError(caught))
      .finally(() => current && setLoading(false));
    return () => void (current = false);
  }, [...deps, generation]);
  return { value, error, loading, reload: () => setGeneration((g) => g + 1) };
}
