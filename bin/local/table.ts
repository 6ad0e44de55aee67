import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION, type GsiDefinition } from '../../shared/platform/store/table.ts';

const keySchema = (partitionKey: string, sortKey: string) => [
  { AttributeName: partitionKey, KeyType: 'HASH' as const },
  { AttributeName: sortKey, KeyType: 'RANGE' as const },
];

/** An index as DynamoDB's CreateTable and UpdateTable take it, projection included. */
const indexSpec = (index: GsiDefinition) => ({
  IndexName: index.indexName,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection:
    index.projection.type === 'INCLUDE'
      ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projection.nonKeyAttributes] }
      : { ProjectionType: index.projection.type },
});

function attributeDefinitions(): AttributeDefinition[] {
  const names = new Set<string>([TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey]);
  for (const index of TABLE_DEFINITION.globalSecondaryIndexes) names.add(index.partitionKey).add(index.sortKey);
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
}

/**
 * Creates the table from the same definition the CDK stack uses, or brings an existing local table up to it
 * (indexes added since it was made). Streams and TTL are on, as in AWS. Answers the indexes it added to an existing
 * table, so the caller can move data into them.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const existing = await client.send(new DescribeTableCommand({ TableName: tableName })).catch((error: { name?: string }) => {
    if (error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  });
  if (!existing) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keySchema(TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey),
        AttributeDefinitions: attributeDefinitions(),
        GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map(indexSpec),
        StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE_DEFINITION.streamViewType },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
      }),
    );
    return [];
  }
  const added: string[] = [];
  const present = new Set((existing.Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
    if (present.has(index.indexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributeDefinitions(),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
      }),
    );
    added.push(index.indexName);
  }
  if (added.length > 0) await untilIndexesActive(client, tableName);
  return added;
}

/** Waits while an added index is still being built: DynamoDB Local answers InternalFailure to writes meanwhile. */
async function untilIndexesActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let round = 0; round < 600; round++) {
    const table = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((table.Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the indexes of ${tableName} did not become ACTIVE within a minute`);
}
