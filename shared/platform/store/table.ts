/**
 * The single table's shape: the one source of truth for its keys, indexes, stream and TTL. The CDK data construct
 * and the local stack both build the table from this, so they cannot drift apart.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL removes the item some time after it (delivery log retention). */
  ttlAttribute: 'ttl',
  streamViewType: 'NEW_AND_OLD_IMAGES',
  globalSecondaryIndexes: [
    /** Generic inverted/overloaded index: see docs/single-table-design.md for the patterns it serves. */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: { type: 'ALL' } },
    /** Sparse: only pending webhook deliveries, by when they are due (the sweeper's pattern). */
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: { type: 'ALL' } },
    /**
     * Each endpoint's delivery log. It projects only the keys and `eventType`, which never change, so the claim and
     * the result of an attempt (which change `status`, `attemptToken`, `attemptLog`, ...) do not rewrite the
     * delivery's copy here: one index write per delivery, at its creation. Lists read the records from the table.
     */
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: { type: 'INCLUDE', nonKeyAttributes: ['eventType'] } },
    /**
     * Each environment's secrets, newest first: where a search by a credential scoped to some environments looks
     * instead of the whole workspace. It projects the key (and its lower case, for `q`), which never change, so a new
     * version does not rewrite the copy here: one index write per secret, at its creation.
     */
    {
      indexName: 'GSI4',
      partitionKey: 'GSI4PK',
      sortKey: 'GSI4SK',
      projection: { type: 'INCLUDE', nonKeyAttributes: ['key', 'keyLower'] },
    },
  ],
} as const;

export type GsiName = (typeof TABLE_DEFINITION.globalSecondaryIndexes)[number]['indexName'];
export type GsiDefinition = (typeof TABLE_DEFINITION.globalSecondaryIndexes)[number];

/** The attributes an index copies, besides its own keys and the table's (undefined: every attribute). */
export function projectedAttributes(index: GsiDefinition): readonly string[] | undefined {
  return index.projection.type === 'INCLUDE' ? index.projection.nonKeyAttributes : undefined;
}
