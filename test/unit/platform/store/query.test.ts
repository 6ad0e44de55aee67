import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { patterns } from '../../../../shared/platform/store/keys.ts';
import { queryAll, queryInput } from '../../../../shared/platform/store/query.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const db = { doc, tableName: 'T' };

describe('queries of named patterns', () => {
  it('builds the key condition from the pattern: partition, prefix, index; a range replaces the prefix', () => {
    expect(queryInput(db, patterns.accessKeysByWorkspace('ws_1'))).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :skp)',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: { ':pk': 'WS#ws_1', ':skp': 'AK#' },
      ScanIndexForward: true,
    });
    expect(queryInput(db, patterns.pendingPurges(), { skBefore: '2026' })).toMatchObject({
      IndexName: 'GSI2',
      KeyConditionExpression: '#pk = :pk AND #sk < :skbefore',
      ExpressionAttributeNames: { '#pk': 'GSI2PK', '#sk': 'GSI2SK' },
    });
    expect(queryInput(db, patterns.auditByWorkspace('ws_1'), { skBetween: ['aud_0', 'aud_9'], newestFirst: true })).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :sklo AND :skhi',
      ScanIndexForward: false,
    });
  });

  it('queryAll follows every page, and stops at maxItems', async () => {
    const mock = mockClient(doc);
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ n: 1 }], LastEvaluatedKey: { PK: 'k' } })
      .resolvesOnce({ Items: [{ n: 2 }] });
    expect(await queryAll(db, patterns.allowlistedWorkspaces())).toEqual([{ n: 1 }, { n: 2 }]);
    mock.reset();
    mock.on(QueryCommand).resolves({ Items: [{ n: 1 }], LastEvaluatedKey: { PK: 'k' } });
    expect(await queryAll(db, patterns.allowlistedWorkspaces(), { maxItems: 1 })).toEqual([{ n: 1 }]);
    expect(mock.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({ Limit: 1, IndexName: 'GSI1' });
  });
});
