import { beforeEach, describe, expect, it } from 'vitest';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDeliveryFanoutStore, makeDeliverySweeperStore } from '../../../../shared/webhooks/deliveries/delivery-pipeline-store.ts';
import { conditionFailed, CREATED, CUTOFF, DELIVERY, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('delivery statistics: a delivery the fan-out makes', () => {
  it('a delivery made after its bucket was over is left out of the rollup and counted as a late change; one made in time writes only itself', async () => {
    const store = makeDeliveryFanoutStore(db);
    const delivery = {
      id: DELIVERY,
      endpointId: WE,
      eventId: 'evt_x',
      eventType: 'service.secret.create',
      status: 'pending' as const,
      attempts: 0,
      statusCode: null,
      lastError: null,
      nextRetryAt: null,
      createdAt: new Date(CREATED).toISOString(),
      updatedAt: new Date(CREATED).toISOString(),
      attemptLog: [],
      body: '{}',
      attemptToken: 't',
      manual: false,
    };
    expect(await store.createDelivery(WS, delivery, CREATED, CUTOFF - 1)).toBe(true);
    expect(dynamodb.commandCalls(PutCommand)[0]!.args[0].input.Item!.rollupStatus).toBeUndefined();
    expect(dynamodb.commandCalls(UpdateCommand)).toHaveLength(0);
    dynamodb.resetHistory();
    expect(await store.createDelivery(WS, delivery, CREATED, CUTOFF)).toBe(true);
    expect(dynamodb.commandCalls(PutCommand)[0]!.args[0].input.Item).toMatchObject({ rollupStatus: 'none', rollupAttempts: 0 });
    expect(dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues)).toEqual([
      expect.objectContaining({ ':created': 1 }),
      expect.objectContaining({ ':created': 1 }),
    ]);
  });
});

describe('deliveries as the fan-out and the sweeper hand them on', () => {
  const NOW = '2026-11-26T10:00:00.000Z';

  it("puts a first attempt whose message may be lost on the sweeper's index, only while that attempt has not started", async () => {
    // Prepare
    dynamodb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { id: DELIVERY, endpointId: WE, status: 'pending' } })
      .rejectsOnce(conditionFailed());
    const store = makeDeliveryFanoutStore(db);
    // Act
    const marked = await store.markDeliveryDue(WS, DELIVERY, 'tok-1', NOW);
    const started = await store.markDeliveryDue(WS, DELIVERY, 'tok-1', NOW);
    // Assess
    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('#status = :pending AND attemptToken = :token');
    expect(input.UpdateExpression).toBe('SET nextRetryAt = :now, GSI2PK = :gpk, GSI2SK = :gsk');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':token': 'tok-1', ':gsk': `${NOW}#${DELIVERY}` });
    expect([marked, started]).toEqual([true, false]);
  });

  it('hands a due attempt a new token only if nobody moved it since the sweeper read it', async () => {
    // Act
    await makeDeliverySweeperStore(db).requeue(WS, DELIVERY, 'tok-1', 'tok-2', NOW);
    // Assess
    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('#status = :pending AND attemptToken = :observed');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':observed': 'tok-1', ':token': 'tok-2', ':now': NOW });
  });

  it('reads the due deliveries from every shard of the index, at most a page of each', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ workspaceId: WS, id: DELIVERY, attemptToken: 'tok-1' }] });
    // Act
    const due = await makeDeliverySweeperStore(db).dueDeliveries(NOW, 5);
    // Assess
    const shards = dynamodb.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues![':pk']);
    expect(shards.sort()).toEqual(['DUE#0', 'DUE#1', 'DUE#2', 'DUE#3']);
    expect(due).toHaveLength(4);
  });
});
