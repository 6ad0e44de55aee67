import { useEffect } from 'preact/hooks';

/** What every title ends with: the browser's tabs and history name the console, after the view. */
const CONSOLE = 'Secrets console';

/**
 * The document title of a view: what it shows, then where (`Secrets · checkout / production — Secrets console`),
 * set by every view through this one hook, again when what it knows of the place changes (a bookmark loads the
 * names after the view). Names and keys only: a value never reaches a title.
 */
export function useTitle(view: string, ...place: (string | undefined)[]): void {
  const where = place.every((part) => part) ? place.join(' / ') : '';
  useEffect(() => {
    document.title = `${view}${where ? ` · ${where}` : ''} — ${CONSOLE}`;
  }, [view, where]);
}
