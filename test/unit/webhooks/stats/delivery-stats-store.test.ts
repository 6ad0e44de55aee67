import { beforeEach, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  isLate,
  lateStatsChange,
  recordLateStats,
  rollableUntil,
  statsHour,
  STATS_RETENTION_SECONDS,
} from '../../../../shared/webhooks/stats/delivery-stats-store.ts';
import { ENTITY } from '../../../../shared/platform/store/keys.ts';
import { CREATED, CUTOFF, DELIVERY, HOUR_START, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();

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

  it('calls a change late from 15 s after the two-minute bucket its delivery was created in (by its id), and rolls a bucket up 15 s later', () => {
    expect(isLate(DELIVERY, CUTOFF - 1)).toBe(false);
    expect(isLate(DELIVERY, CUTOFF)).toBe(true);
    expect(rollableUntil(CUTOFF + 15_000 - 1)).toBe(Date.parse('2026-11-26T09:40:00.000Z'));
    expect(rollableUntil(CUTOFF + 15_000)).toBe(Date.parse('2026-11-26T09:42:00.000Z'));
  });

  it('a late change is two unconditional updates, of the bucket and the hour the delivery was created in, beside the deliveries, with their TTL', () => {
    // Act
    const [hour, bucket] = lateStatsChange(db, WS, WE, CREATED, { created: 1 });
    // Assess
    expect(hour!.Update).toEqual({
      TableName: 'T',
      Key: { PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09` },
      UpdateExpression: 'ADD xn :created SET #type = :type, #ttl = :ttl',
      ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':type': ENTITY.deliveryStats, ':ttl': HOUR_START + STATS_RETENTION_SECONDS, ':created': 1 },
    });
    expect(bucket!.Update).toMatchObject({
      Key: { PK: `WS#${WS}#WHD`, SK: `STATB#${WE}#2026-11-26T09:40` },
      ExpressionAttributeValues: {
        ':type': ENTITY.deliveryStatsBucket,
        ':ttl': Date.parse('2026-11-26T09:40:00.000Z') / 1000 + STATS_RETENTION_SECONDS,
        ':created': 1,
      },
    });
    expect([hour!.Update!.ConditionExpression, bucket!.Update!.ConditionExpression]).toEqual([undefined, undefined]);
  });

  it("a late attempt adds one to its duration's bin and sets its time; counts may go down", async () => {
    // Act
    await recordLateStats(db, WS, WE, CREATED, { failed: -2, succeeded: 1, durationMs: 120, successAt: '2026-11-28T10:00:00.000Z' });
    // Assess
    const inputs = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.Key!.SK)).toEqual([`STATB#${WE}#2026-11-26T09:40`, `STAT#${WE}#2026-11-26T09`]);
    for (const input of inputs) {
      expect(input.UpdateExpression).toBe('ADD xs :succeeded, xf :failed, xd4 :d4 SET #type = :type, #ttl = :ttl, xsAt = :successAt');
      expect(input.ExpressionAttributeValues).toMatchObject({
        ':succeeded': 1,
        ':failed': -2,
        ':d4': 1,
        ':successAt': '2026-11-28T10:00:00.000Z',
      });
      expect(input.ConditionExpression).toBeUndefined();
    }
  });
});
