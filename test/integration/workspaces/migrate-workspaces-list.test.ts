import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateWorkspacesList } from '../../../bin/migrate-workspaces-list.ts';
import { makeDigestStore } from '../../../shared/audit-digests/index.ts';
import { makeDocumentClient } from '../../../shared/platform/clients/dynamodb.ts';
import type { Pager } from '../../../shared/platform/store/pager.ts';

/** A table of its own, with GSI2, as a stack deployed before the workspaces list left it: workspaces without GSI2 keys. */
const tableName = `workspaces-list-${Date.now()}`;
const endpoint = () => inject('stack').dynamodbEndpoint;
let client: DynamoDBClient;
let doc: ReturnType<typeof makeDocumentClient>;

const OLD = { PK: 'WS#ws_01JOLD0000000000000000000A', SK: '#META', type: 'Workspace', id: 'ws_01JOLD0000000000000000000A', name: 'Old' };
const NEW = {
  PK: 'WS#ws_01JNEW0000000000000000000B',
  SK: '#META',
  type: 'Workspace',
  id: 'ws_01JNEW0000000000000000000B',
  name: 'New',
  GSI2PK: 'WORKSPACES',
  GSI2SK: 'ws_01JNEW0000000000000000000B',
};
/** A project in the old workspace's partition: not a workspace item, so left alone. */
const PROJECT = { PK: OLD.PK, SK: 'PRJ#prj_1', type: 'Project', id: 'prj_1' };

beforeAll(async () => {
  // Prepare
  client = new DynamoDBClient({ endpoint: endpoint(), region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: ['PK', 'SK', 'GSI2PK', 'GSI2SK'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      GlobalSecondaryIndexes: [
        {
          IndexName: 'GSI2',
          KeySchema: [
            { AttributeName: 'GSI2PK', KeyType: 'HASH' },
            { AttributeName: 'GSI2SK', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  doc = makeDocumentClient({ endpoint: endpoint() });
  for (const Item of [OLD, NEW, PROJECT]) await doc.send(new PutCommand({ TableName: tableName, Item }));
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

describe('workspaces migrate-list', () => {
  it("puts a workspace made before the list into it, with putWorkspace's keys, and the digester then finds every workspace", async () => {
    // Act
    const result = await migrateWorkspacesList(doc, tableName);

    // Assess
    expect(result).toEqual({ scanned: 3, added: 1 });
    const old = await doc.send(new GetCommand({ TableName: tableName, Key: { PK: OLD.PK, SK: OLD.SK } }));
    expect(old.Item).toEqual({ ...OLD, GSI2PK: 'WORKSPACES', GSI2SK: OLD.id });
    const project = await doc.send(new GetCommand({ TableName: tableName, Key: { PK: PROJECT.PK, SK: PROJECT.SK } }));
    expect(project.Item).toEqual(PROJECT);
    const store = makeDigestStore({ doc, tableName }, {} as Pager);
    expect((await store.workspaceIds()).sort()).toEqual([NEW.id, OLD.id].sort());
  });

  it('adds nothing on a second run, and leaves the listed workspaces as they are', async () => {
    // Act
    const again = await migrateWorkspacesList(doc, tableName);

    // Assess
    expect(again).toEqual({ scanned: 3, added: 0 });
    const listed = await doc.send(new GetCommand({ TableName: tableName, Key: { PK: NEW.PK, SK: NEW.SK } }));
    expect(listed.Item).toEqual(NEW);
  });
});
