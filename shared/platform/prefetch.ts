/**
 * Items a route reads ahead, in the credential's own round trip. The types live here, below both the HTTP layer and
 * the data layer, so that routes can name what to read without knowing how the table is laid out.
 */

/** The primary key of one table item. */
export interface ItemKey {
  PK: string;
  SK: string;
  /**
   * Read ahead eventually consistently (half the read units): only for items whose staleness is harmless to the
   * route asking (a reveal's secret head, see the README's "Reveals: cost and consistency"). Never a credential.
   */
  eventual?: true;
}

/** The same keys, to be read ahead eventually consistently. */
export function eventually(itemKeys: readonly ItemKey[]): ItemKey[] {
  return itemKeys.map((key) => ({ ...key, eventual: true }));
}

/** Items read ahead of time in one batch with the credential, keyed by `itemKeyString`; absent items map to undefined. */
export type Prefetched = ReadonlyMap<string, Record<string, unknown> | undefined>;

/** The map key of an item key in `Prefetched`. */
export function itemKeyString(key: ItemKey): string {
  return `${key.PK}\u0000${key.SK}`;
}
