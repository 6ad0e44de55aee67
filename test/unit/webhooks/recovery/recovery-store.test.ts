import { beforeEach, describe, expect, it } from 'vitest';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import {
  deliveryIdSpan,
  makeRecoveryApiStore,
  makeRecoverySweeperStore,
  slicesOf,
  type Recovery,
} from '../../../../shared/webhooks/recovery/recovery-store.ts';
import { audit, mockedDb, WE, WS } from '../store-support.ts';

/** A recovery counts its span in time slices side by side: together they must hold every id of the span exactly once. */
describe('the time slices of a recovery span', () => {
  const T0 = Date.parse('2026-11-26T00:00:00Z');

  it('cover the span without a gap or an overlap, whatever its length', () => {
    for (const lengthMs of [0, 1, 7, 8, 9, 1000, 3_600_000, 14 * 86_400_000]) {
      const { fromId, toId } = deliveryIdSpan(T0, T0 + lengthMs);
      const slices = slicesOf(fromId, toId, 8);
      expect(slices.length).toBeLessThanOrEqual(8);
      expect(slices[0]![0]).toBe(fromId);
      expect(slices.at(-1)![1]).toBe(toId);
      for (const [lo, hi] of slices) expect(lo <= hi).toBe(true);
      for (let i = 1; i < slices.length; i++) expect(slices[i - 1]![1] < slices[i]![0]).toBe(true);
      // Every id of every millisecond of the span falls in exactly one slice.
      for (let n = 0; n < 200; n++) {
        const id = `whd_${ulid(T0 + Math.floor(Math.random() * (lengthMs + 1)))}`;
        expect(slices.filter(([lo, hi]) => lo <= id && id <= hi)).toHaveLength(1);
      }
    }
  });

  it("keep exact ids as the span's ends (the first and the last failed delivery, not a whole millisecond)", () => {
    const first = `whd_${ulid(T0)}`;
    const last = `whd_${ulid(T0 + 5000)}`;
    const slices = slicesOf(first, last, 8);
    expect(slices[0]![0]).toBe(first);
    expect(slices.at(-1)![1]).toBe(last);
  });
});

describe('the recoveries in the store', () => {
  const { db, dynamodb } = mockedDb();
  const store = makeRecoveryApiStore(db);
  const T0 = Date.parse('2026-11-26T00:00:00Z');
  const recovery = (status: Recovery['status']): Recovery => ({
    id: 'aud_01JX0000000000000000000000',
    endpointId: WE,
    ...deliveryIdSpan(T0, T0 + 3_600_000),
    since: new Date(T0).toISOString(),
    until: new Date(T0 + 3_600_000).toISOString(),
    expected: 4,
    queued: 0,
    cursor: null,
    step: 0,
    status,
    createdAt: new Date(T0 + 3_600_000).toISOString(),
    updatedAt: new Date(T0 + 3_600_000).toISOString(),
  });

  beforeEach(() => {
    dynamodb.reset();
    dynamodb.onAnyCommand().resolves({});
  });

  it('counts no failed delivery without reading its slices when the span holds none', async () => {
    // Act
    const count = await store.countFailedDeliveries(WE, deliveryIdSpan(T0, T0 + 1000));
    // Assess: the two reads of the edges only
    expect(count).toBe(0);
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(2);
  });

  it('counts the failed list between its first and last delivery of the span, every page of every slice', async () => {
    // Prepare: both edges found; each slice answers two pages of counts
    const first = `whd_${ulid(T0)}`;
    const last = `whd_${ulid(T0 + 7)}`;
    dynamodb.on(QueryCommand, { Limit: 1, ScanIndexForward: true }).resolves({ Items: [{ PK: 'x', SK: first }] });
    dynamodb.on(QueryCommand, { Limit: 1, ScanIndexForward: false }).resolves({ Items: [{ PK: 'x', SK: last }] });
    dynamodb
      .on(QueryCommand, { Select: 'COUNT' })
      .callsFake((input: { ExclusiveStartKey?: unknown }) =>
        input.ExclusiveStartKey ? { Count: 1 } : { Count: 2, LastEvaluatedKey: { PK: 'more' } },
      );
    // Act
    const count = await store.countFailedDeliveries(WE, deliveryIdSpan(T0, T0 + 3_600_000));
    // Assess: eight slices of one millisecond, three each
    expect(count).toBe(slicesOf(first, last, 8).length * 3);
  });

  it('records a running recovery on the sweeper index with its audit entry; a finished one off it', async () => {
    // Act
    await store.startRecovery(WS, recovery('running'), audit({ action: 'webhook_endpoint.recover' }));
    await store.startRecovery(WS, recovery('done'), audit({ action: 'webhook_endpoint.recover' }));
    // Assess
    const [running, done] = dynamodb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
    expect(running).toHaveLength(2);
    expect(running![0]!.Put!.Item).toMatchObject({ GSI2PK: 'RECOVERY', status: 'running', workspaceId: WS });
    expect(running![0]!.Put!.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(done![0]!.Put!.Item!.GSI2PK).toBeUndefined();
  });

  it("writes a test event's delivery due now on the sweeper index, in its endpoint's log, with its audit entry", async () => {
    // Prepare
    const id = `whd_${ulid(T0)}`;
    const createdAt = new Date(T0).toISOString();
    const delivery = {
      id,
      endpointId: WE,
      eventId: 'evt_x',
      eventType: 'service.ping',
      status: 'pending' as const,
      attempts: 0,
      statusCode: null,
      lastError: null,
      nextRetryAt: createdAt,
      createdAt,
      updatedAt: createdAt,
      attemptLog: [],
      body: '{}',
      attemptToken: 'tok-1',
      manual: false,
    };
    // Act
    await store.createTestDelivery(WS, delivery, audit({ action: 'webhook_endpoint.test' }));
    // Assess
    const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(2);
    expect(items[0]!.Put!.Item).toMatchObject({ PK: `WS#${WS}#WHD`, SK: id, GSI3PK: `WHE#${WE}`, GSI2SK: `${createdAt}#${id}` });
  });

  it('finds, for the sweeper, the running recoveries that last moved before a time', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ workspaceId: WS, id: 'aud_x', step: 3 }] });
    // Act
    const stalled = await makeRecoverySweeperStore(db).stalledRecoveries('2026-11-26T10:00:00.000Z');
    // Assess
    expect(stalled).toEqual([{ workspaceId: WS, id: 'aud_x', step: 3 }]);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({ ':pk': 'RECOVERY' });
  });
});
