import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { readStats, recordStats, statsChange, statsHour, STATS_RETENTION_SECONDS } from '../../shared/store/delivery-stats.ts';
import { makeDeliveryApiStore } from '../../shared/store/deliveries.ts';
import type { Pager } from '../../shared/store/pager.ts';
import { ENTITY } from '../../shared/store/keys.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };
const WS = 'ws_01JX0000000000000000000000';
const WE = 'we_01JX0000000000000000000000';
const HOUR_START = Date.parse('2026-11-26T09:00:00.000Z') / 1000;

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('delivery statistics in the store', () => {
  it('names the hour of an ISO time in UTC', () => {
    expect(statsHour('2026-11-26T09:59:59.999Z')).toBe('2026-11-26T09');
    expect(statsHour('2026-11-26T10:30:00.000+02:00')).toBe('2026-11-26T08');
    expect(statsHour(Date.parse('2026-11-26T23:00:00.000Z'))).toBe('2026-11-26T23');
  });

  it('a change is one unconditional update of the hour the delivery was created in, beside the deliveries, with its TTL', () => {
    // Act
    const item = statsChange(db, WS, WE, '2026-11-26T09:41:07.123Z', { created: 1 });
    // Assess
    expect(item.Update).toEqual({
      TableName: 'T',
      Key: { PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09` },
      UpdateExpression: 'ADD #created :created SET #type = :type, #ttl = :ttl',
      ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl', '#created': 'created' },
      ExpressionAttributeValues: { ':type': ENTITY.deliveryStats, ':ttl': HOUR_START + STATS_RETENTION_SECONDS, ':created': 1 },
    });
    expect(item.Update!.ConditionExpression).toBeUndefined();
  });

  it('an attempt adds one to its duration\'s bin and sets its time; counts may go down', async () => {
    // Act
    await recordStats(db, WS, WE, '2026-11-26T09:00:00.000Z', { failed: -2, succeeded: 1, durationMs: 120, successAt: '2026-11-28T10:00:00.000Z' });
    // Assess
    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toBe('ADD #succeeded :succeeded, #failed :failed, #d4 :d4 SET #type = :type, #ttl = :ttl, #lastSuccessAt = :lastSuccessAt');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':succeeded': 1, ':failed': -2, ':d4': 1, ':lastSuccessAt': '2026-11-28T10:00:00.000Z' });
    expect(input.ConditionExpression).toBeUndefined();
  });

  it('reads an endpoint\'s hours from one hour on with one Query, and fills what an hour never counted with zeros', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09`, created: 2, d0: 2, lastFailureAt: '2026-11-26T09:30:00.000Z' }] });
    // Act
    const hours = await readStats(db, WS, WE, '2026-11-26T08');
    // Assess
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :sklo AND :skhi',
      ExpressionAttributeValues: { ':pk': `WS#${WS}#WHD`, ':sklo': `STAT#${WE}#2026-11-26T08`, ':skhi': `STAT#${WE}#~` },
    });
    expect(hours).toEqual([
      { hour: '2026-11-26T09', created: 2, succeeded: 0, failed: 0, durations: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], lastSuccessAt: null, lastFailureAt: '2026-11-26T09:30:00.000Z' },
    ]);
  });

  it.each([
    ['failed', { failed: -1 }],
    ['success', { succeeded: -1 }],
  ] as const)('a manual retry of a %s delivery holds only from that status, and takes it out of that count in the same transaction', async (status, change) => {
    // Act
    const store = makeDeliveryApiStore(db, {} as Pager);
    const audit = { id: 'aud_01', action: 'webhook_delivery.retry' as const, actorSub: 'key_x', target: 'whd_01', metadata: {}, createdAt: '2026-11-28T10:00:00.000Z', accountId: 'acc_x' };
    await store.retryNow(WS, { id: 'whd_01', endpointId: WE, createdAt: '2026-11-26T09:12:00.000Z', status }, 'tok', '2026-11-28T10:00:00.000Z', audit);
    // Assess
    const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items[0]!.Update).toMatchObject({ ConditionExpression: '#status = :observed', ExpressionAttributeValues: expect.objectContaining({ ':observed': status }) });
    expect(items[1]!.Update).toMatchObject({ Key: { PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09` }, ExpressionAttributeValues: expect.objectContaining(Object.fromEntries(Object.entries(change).map(([k, v]) => [`:${k}`, v]))) });
    expect(items).toHaveLength(3);
  });
});
