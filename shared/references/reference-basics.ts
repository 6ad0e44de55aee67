/**
 * What every reader of secret references needs without the parser or the resolver (decisions.md v1.4): where a
 * secret is, its path, and how deep a resolution goes. The reverse index's writes, the fan-out's walk and the 409's
 * mapping use these on every cold start; the parser and the resolver load on first use (reference-resolving.ts).
 */

/** Where a secret is: its project's and environment's slugs and its key. */
export interface SecretPlace {
  projectSlug: string;
  envSlug: string;
  key: string;
}

/** `<projectSlug>/<envSlug>/<key>`, the path of decisions.md's reveal by path. */
export const pathOf = (place: SecretPlace): string => `${place.projectSlug}/${place.envSlug}/${place.key}`;

/** Levels a resolution goes down: the value's own references are the first; one at the 6th is `too_deep`. */
export const MAX_LEVELS = 5;
