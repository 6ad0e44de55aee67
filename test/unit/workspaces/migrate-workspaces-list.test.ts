import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrateWorkspacesList } from '../../../bin/migrate-workspaces-list.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const WS = 'ws_01JOLD0000000000000000000A';

beforeEach(() => {
  dynamodb.reset();
});

describe('migrateWorkspacesList', () => {
  it('scans for unlisted workspace items only, and adds each with a write that cannot overwrite keys it got meanwhile', async () => {
    // Prepare
    dynamodb.on(ScanCommand).resolves({ Items: [{ PK: `WS#${WS}`, SK: '#META' }], ScannedCount: 1 });
    dynamodb.on(UpdateCommand).resolves({});

    // Act
    const result = await migrateWorkspacesList(doc, 'table');

    // Assess
    expect(result).toEqual({ scanned: 1, added: 1 });
    expect(dynamodb.commandCalls(ScanCommand)[0]!.args[0].input).toMatchObject({
      FilterExpression: '#type = :workspace AND SK = :meta AND attribute_not_exists(GSI2PK)',
      ExpressionAttributeValues: { ':workspace': 'Workspace', ':meta': '#META' },
    });
    expect(dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      Key: { PK: `WS#${WS}`, SK: '#META' },
      UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(GSI2PK)',
      ExpressionAttributeValues: { ':pk': 'WORKSPACES', ':sk': WS },
    });
  });

  it('counts a workspace whose condition failed (listed by another run, or deleted) as not added, and goes on', async () => {
    // Prepare
    dynamodb.on(ScanCommand).resolves({
      Items: [
        { PK: `WS#${WS}`, SK: '#META' },
        { PK: 'WS#ws_2', SK: '#META' },
      ],
      ScannedCount: 2,
    });
    dynamodb
      .on(UpdateCommand)
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }))
      .resolves({});

    // Act
    const result = await migrateWorkspacesList(doc, 'table');

    // Assess
    expect(result).toEqual({ scanned: 2, added: 1 });
    expect(dynamodb.commandCalls(UpdateCommand)).toHaveLength(2);
  });
});
