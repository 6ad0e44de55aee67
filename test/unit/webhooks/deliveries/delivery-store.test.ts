import { beforeEach, describe, expect, it } from 'vitest';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDeliveryApiStore, makeDeliveryWorkerStore } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import type { Pager } from '../../../../shared/platform/store/pager.ts';
import { audit, CREATED, CUTOFF, DELIVERY, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('delivery statistics: what each change of a delivery writes', () => {
  const retry = (status: 'success' | 'failed', now: number) =>
    makeDeliveryApiStore(db, {} as Pager).retryNow(
      WS,
      { id: DELIVERY, endpointId: WE, createdAt: new Date(CREATED).toISOString(), status },
      'tok',
      new Date(now).toISOString(),
      audit(),
    );

  it.each([
    ['failed', { ':failed': -1 }],
    ['success', { ':succeeded': -1 }],
  ] as const)(
    'a late manual retry of a %s delivery holds only from that status, and takes it out of that count in the same transaction',
    async (status, change) => {
      // Act
      expect(await retry(status, CUTOFF)).toBe(true);
      // Assess: the delivery (its state before the retry left for the rollup), its hour, its bucket, the audit entry
      const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
      expect(items).toHaveLength(4);
      expect(items[0]!.Update).toMatchObject({
        ConditionExpression: '#status = :observed',
        ExpressionAttributeValues: expect.objectContaining({ ':observed': status }),
      });
      expect(items[0]!.Update!.UpdateExpression).toContain(
        'rollupStatus = if_not_exists(rollupStatus, #status), rollupAttempts = if_not_exists(rollupAttempts, attempts)',
      );
      expect(items[1]!.Update).toMatchObject({
        Key: { PK: `WS#${WS}#WHD`, SK: `STAT#${WE}#2026-11-26T09` },
        ExpressionAttributeValues: expect.objectContaining(change),
      });
      expect(items[2]!.Update).toMatchObject({
        Key: { PK: `WS#${WS}#WHD`, SK: `STATB#${WE}#2026-11-26T09:40` },
        ExpressionAttributeValues: expect.objectContaining(change),
      });
    },
  );

  it("an early manual retry writes no count (the bucket's rollup sees how it ends up), and only while no change was counted late", async () => {
    expect(await retry('failed', CUTOFF - 1)).toBe(true);
    const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(2);
    expect(items[0]!.Update).toMatchObject({ ConditionExpression: '#status = :observed AND attribute_not_exists(rollupStatus)' });
    expect(items[0]!.Update!.UpdateExpression).not.toContain('rollupStatus');
  });

  it('an early manual retry of a delivery already counted late is counted late too', async () => {
    // Prepare: the early transaction fails on its condition; the late one holds
    dynamodb
      .on(TransactWriteCommand)
      .rejectsOnce(
        Object.assign(new Error('cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
        }),
      )
      .resolves({});
    // Act
    expect(await retry('failed', CUTOFF - 1)).toBe(true);
    // Assess
    const [early, late] = dynamodb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
    expect([early!.length, late!.length]).toEqual([2, 4]);
  });

  it("an attempt that ends after the cutoff leaves the delivery's state for the rollup in its own write; one that ends before does not", async () => {
    const store = makeDeliveryWorkerStore(db);
    const entry = (endsAt: number) => ({
      attempt: 1,
      at: new Date(endsAt - 40).toISOString(),
      statusCode: 200,
      durationMs: 40,
      error: null,
    });
    await store.recordAttempt(WS, DELIVERY, 'claim', entry(CUTOFF - 1), { status: 'success' });
    await store.recordAttempt(WS, DELIVERY, 'claim', entry(CUTOFF), { status: 'success' });
    const [early, late] = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input.UpdateExpression!);
    expect(early).not.toContain('rollupStatus');
    expect(late).toMatch(
      /^SET rollupStatus = if_not_exists\(rollupStatus, #status\), rollupAttempts = if_not_exists\(rollupAttempts, attempts\), #status = :status/,
    );
  });

  it('an attempt is counted apart only when its delivery is counted late, in the bucket of the id it names', async () => {
    const store = makeDeliveryWorkerStore(db);
    await store.recordDeliveryStats(WS, WE, 'ignored', { succeeded: 1 }, { late: false, deliveryId: DELIVERY });
    expect(dynamodb.commandCalls(UpdateCommand)).toHaveLength(0);
    await store.recordDeliveryStats(WS, WE, 'ignored', { succeeded: 1 }, { late: true, deliveryId: DELIVERY });
    expect(dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key!.SK)).toEqual([
      `STATB#${WE}#2026-11-26T09:40`,
      `STAT#${WE}#2026-11-26T09`,
    ]);
  });

  it('a pending delivery failed after the cutoff is counted failed as a late change; failed before, the rollup counts it', async () => {
    const store = makeDeliveryWorkerStore(db);
    dynamodb.on(UpdateCommand).resolvesOnce({ Attributes: { id: DELIVERY, endpointId: WE, status: 'failed', createdAt: 'x' } });
    await store.failPending(WS, DELIVERY, 'endpoint paused', new Date(CUTOFF - 1).toISOString());
    expect(dynamodb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input.UpdateExpression).not.toContain('rollupStatus');
    dynamodb.resetHistory();
    dynamodb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { id: DELIVERY, endpointId: WE, status: 'failed', createdAt: 'x', rollupStatus: 'pending' } })
      .resolves({});
    await store.failPending(WS, DELIVERY, 'endpoint paused', new Date(CUTOFF).toISOString());
    const inputs = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(inputs[0]!.UpdateExpression).toContain('rollupStatus = if_not_exists');
    expect(inputs.slice(1).map((input) => input.ExpressionAttributeValues![':failed'])).toEqual([1, 1]);
  });
});
