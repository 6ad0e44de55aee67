const MAX_SLUG = 64;

/**
 * The slug rule of decisions.md: NFKD, diacritics removed, lower-cased, every run outside [a-z0-9] becomes "-",
 * leading and trailing "-" removed, cut to 64 characters (and a "-" the cut leaves at the end removed too).
 */
export function slugify(name: string, fallback: 'project' | 'environment'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** `base` if free, else the first of `base-2`, `base-3`, … that is not taken. */
export function firstFreeSlug(base: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}
