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
    /** Generic inverted/overloaded index: see the README's single-table design for the patterns it serves. */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** Sparse: only pending webhook deliveries, by when they are due (the sweeper's pattern). */
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
} as const;

export type GsiName = (typeof TABLE_DEFINITION.globalSecondaryIndexes)[number]['indexName'];
