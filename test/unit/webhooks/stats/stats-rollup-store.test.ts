import { beforeEach, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DURATION_BINS } from '../../../../shared/webhooks/stats/stats-histogram.ts';
import { baseUpdate, makeStatsRollupStore } from '../../../../shared/webhooks/stats/stats-rollup-store.ts';
import { conditionFailed, CREATED, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('the statistics rollup store', () => {
  it('the rollup writes fixed values (written again, the same), clears the bins and times it did not count, and leaves late changes alone', () => {
    // Act
    const durations = new Array<number>(DURATION_BINS).fill(0);
    durations[3] = 4;
    const input = baseUpdate(
      db,
      WS,
      WE,
      CREATED,
      { hour: '', created: 5, succeeded: 4, failed: 1, durations, lastSuccessAt: '2026-11-26T09:41:08.000Z', lastFailureAt: null },
      'hour',
    ).input;
    // Assess
    expect(input.Key).toEqual({ PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09` });
    expect(input.UpdateExpression).toBe(
      'SET #type = :type, #ttl = :ttl, n = :n, s = :s, f = :f, d3 = :d3, sAt = :sAt REMOVE created, succeeded, failed, lastSuccessAt, lastFailureAt, ' +
        'd0, d1, d2, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, fAt',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ':n': 5, ':s': 4, ':f': 1, ':d3': 4, ':sAt': '2026-11-26T09:41:08.000Z' });
    expect(input.UpdateExpression).not.toMatch(/\bx/);
    expect(input.ConditionExpression).toBeUndefined();
  });

  it('moves the watermark on only from where it read it (none yet: only if there is none), so one of two rollups wins', async () => {
    // Prepare
    const store = makeStatsRollupStore(db);
    dynamodb.on(UpdateCommand).resolvesOnce({}).resolvesOnce({}).rejectsOnce(conditionFailed());
    // Act
    const first = await store.advanceWatermark(WS, undefined, 120_000, [WE], CREATED);
    const next = await store.advanceWatermark(WS, 120_000, 240_000, [], CREATED);
    const lost = await store.advanceWatermark(WS, 120_000, 240_000, [], CREATED);
    // Assess
    const [a, b] = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(a!.ConditionExpression).toBe('attribute_not_exists(rolledTo)');
    expect(a!.UpdateExpression).toContain('hourEndpoints = :endpoints');
    expect(b!.ConditionExpression).toBe('rolledTo = :from');
    expect(b!.UpdateExpression).toMatch(/REMOVE hourEndpoints$/);
    expect([first, next, lost]).toEqual([true, true, false]);
  });
});
