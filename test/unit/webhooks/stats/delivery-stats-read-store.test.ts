import { beforeEach, describe, expect, it } from 'vitest';
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { makeDeliveryStatsReader } from '../../../../shared/webhooks/stats/delivery-stats-read-store.ts';
import { DELIVERY, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('what the statistics route reads', () => {
  it("reads an endpoint's hours in a span with one Query, adding the late changes to what the rollup counted", async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({
      Items: [
        {
          PK: `WS#${WS}#WHD`,
          SK: `STAT#${WE}#2026-11-26T09`,
          n: 2,
          s: 1,
          d0: 2,
          fAt: '2026-11-26T09:30:00.000Z',
          xs: 1,
          xd0: 1,
          xfAt: '2026-11-26T11:00:00.000Z',
        },
      ],
    });
    // Act
    const hours = await makeDeliveryStatsReader(db).statsHours(
      WS,
      WE,
      Date.parse('2026-11-26T08:00:00.000Z'),
      Date.parse('2026-11-26T12:00:00.000Z'),
    );
    // Assess
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :sklo AND :skhi',
      ExpressionAttributeValues: { ':pk': `WS#${WS}#WHD`, ':sklo': `STAT#${WE}#2026-11-26T08`, ':skhi': `STAT#${WE}#2026-11-26T11` },
    });
    expect(hours).toEqual([
      {
        hour: '2026-11-26T09',
        created: 2,
        succeeded: 2,
        failed: 0,
        durations: [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        lastSuccessAt: null,
        lastFailureAt: '2026-11-26T11:00:00.000Z',
      },
    ]);
  });

  it("counts the endpoint's deliveries of a span one by one, from its log, only those in the workspace", async () => {
    // Prepare: the log names one delivery of the workspace and one elsewhere
    dynamodb.on(QueryCommand).resolves({
      Items: [
        { PK: `WS#${WS}#WHD`, SK: DELIVERY },
        { PK: 'WS#ws_other#WHD', SK: DELIVERY },
      ],
    });
    dynamodb.on(BatchGetCommand).resolves({
      Responses: { T: [{ PK: `WS#${WS}#WHD`, SK: DELIVERY, id: DELIVERY, endpointId: WE, status: 'failed', attemptLog: [] }] },
    });
    // Act
    const totals = await makeDeliveryStatsReader(db).countEndpointDeliveries(WS, WE, 0, Date.parse('2026-11-27T00:00:00Z'), 10);
    // Assess
    expect(totals).toMatchObject({ created: 1, failed: 1 });
    const keys = dynamodb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.T!.Keys;
    expect(keys).toEqual([{ PK: `WS#${WS}#WHD`, SK: DELIVERY }]);
  });

  it('reads no record when the log holds more deliveries than the limit: undefined (the rollup is behind)', async () => {
    dynamodb.on(QueryCommand).resolves({
      Items: [
        { PK: `WS#${WS}#WHD`, SK: 'whd_1' },
        { PK: `WS#${WS}#WHD`, SK: 'whd_2' },
      ],
    });
    expect(await makeDeliveryStatsReader(db).countEndpointDeliveries(WS, WE, 0, 1, 1)).toBeUndefined();
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it("reads the workspace's watermark eventually consistently, or undefined before its first rollup", async () => {
    dynamodb
      .on(GetCommand)
      .resolvesOnce({ Item: { rolledTo: 120_000, hourEndpoints: new Set([WE]) } })
      .resolvesOnce({});
    const reader = makeDeliveryStatsReader(db);
    expect(await reader.statsWatermark(WS)).toEqual({ rolledTo: 120_000, hourEndpoints: [WE] });
    expect(await reader.statsWatermark(WS)).toBeUndefined();
    expect(dynamodb.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(false);
  });
});
