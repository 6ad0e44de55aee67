/**
 * Stored items are never returned as they are: `pick` copies the named fields out (absent ones as null), so keys,
 * entity types and hashes stay inside the data layer.
 */
export function pick<T>(item: Record<string, unknown> | undefined, fields: readonly (keyof T)[]): T | undefined {
  return item ? (Object.fromEntries(fields.map((f) => [f, item[f as string] ?? null])) as T) : undefined;
}

/** Drops null fields before a write, so "not set" is an absent attribute and `if_not_exists` works on it. */
export function compact<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}
