import { beforeEach, describe, expect, it } from 'vitest';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { gsi2 } from '../../../../shared/platform/store/keys.ts';
import type { Pager } from '../../../../shared/platform/store/pager.ts';
import { makeDeliveryApiStore } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import {
  deliveryUpdate,
  inWorkspace,
  requeueChange,
  staleClaimOf,
  updateDelivery,
} from '../../../../shared/webhooks/deliveries/delivery-shared-store.ts';
import { makeRecoveryWorkerStore } from '../../../../shared/webhooks/recovery/recovery-worker-store.ts';
import { audit, conditionFailed, CREATED, CUTOFF, DELIVERY, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();
const NOW = new Date(CUTOFF - 1).toISOString();
const LATE = new Date(CUTOFF).toISOString();

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('requeueChange: a finished delivery queued again for one attempt now', () => {
  it('makes it pending with the fresh token, manual, due now on the sweeper index and out of the failed list', () => {
    // Act
    const change = requeueChange(DELIVERY, { token: 'tok-2', now: NOW, late: false }, { condition: '#status = :failed', values: {} });
    // Assess
    expect(change.set).toBe(
      '#status = :pending, attemptToken = :token, nextRetryAt = :now, updatedAt = :now, manual = :true, GSI2PK = :gpk, GSI2SK = :gsk',
    );
    expect(change.remove).toBe('GSI4PK, GSI4SK');
    const due = gsi2.dueDelivery(DELIVERY, NOW);
    expect(change.values).toEqual({
      ':pending': 'pending',
      ':token': 'tok-2',
      ':now': NOW,
      ':true': true,
      ':gpk': due.GSI2PK,
      ':gsk': due.GSI2SK,
    });
  });

  it("leaves the delivery's state before it for the rollup only when the change is late", () => {
    const early = requeueChange(DELIVERY, { token: 't', now: NOW, late: false }, { condition: 'c', values: {} });
    const late = requeueChange(DELIVERY, { token: 't', now: LATE, late: true }, { condition: 'c', values: {} });
    expect(early.set).not.toContain('rollupStatus');
    expect(late.set).toMatch(/^rollupStatus = if_not_exists\(rollupStatus, #status\), rollupAttempts = if_not_exists/);
  });

  it("holds only from the state the caller names: its condition and values, added to the change's", () => {
    const change = requeueChange(
      DELIVERY,
      { token: 't', now: NOW, late: false },
      { condition: '#status = :observed', values: { ':observed': 'success' } },
    );
    expect(change.condition).toBe('#status = :observed');
    expect(change.values).toMatchObject({ ':observed': 'success', ':pending': 'pending' });
  });

  it('is the one update of both a manual retry and a recovery: both send exactly its SET and REMOVE', async () => {
    // Act: a manual retry of a failed delivery, and a recovery's requeue of the same one
    await makeDeliveryApiStore(db, {} as Pager).retryNow(
      WS,
      { id: DELIVERY, endpointId: WE, createdAt: new Date(CREATED).toISOString(), status: 'failed' },
      'tok-2',
      NOW,
      audit(),
    );
    await makeRecoveryWorkerStore(db).requeueFailed(WS, DELIVERY, WE, 'tok-2', NOW);
    // Assess
    const expected = deliveryUpdate(
      db,
      WS,
      DELIVERY,
      requeueChange(DELIVERY, { token: 'tok-2', now: NOW, late: false }, { condition: 'x', values: {} }),
    );
    const retried = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Update!;
    const recovered = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(retried.UpdateExpression).toBe(expected.UpdateExpression);
    expect(recovered.UpdateExpression).toBe(expected.UpdateExpression);
    expect([retried.Key, recovered.Key]).toEqual([expected.Key, expected.Key]);
  });
});

describe('the conditional update of one delivery', () => {
  it('sets, removes when asked, and names #status', () => {
    const input = deliveryUpdate(db, WS, DELIVERY, {
      set: 'a = :a',
      remove: 'b',
      condition: '#status = :s',
      values: { ':a': 1, ':s': 'x' },
    });
    expect(input).toEqual({
      TableName: 'T',
      Key: { PK: `WS#${WS}#WHD`, SK: DELIVERY },
      UpdateExpression: 'SET a = :a REMOVE b',
      ConditionExpression: '#status = :s',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':a': 1, ':s': 'x' },
    });
    expect(deliveryUpdate(db, WS, DELIVERY, { set: 'a = :a', condition: 'c', values: {} }).UpdateExpression).toBe('SET a = :a');
  });

  it('answers the delivery as it now is, or undefined when it moved on (its condition failed)', async () => {
    // Prepare
    dynamodb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { id: DELIVERY, endpointId: WE, status: 'pending' } })
      .rejectsOnce(conditionFailed());
    const change = { set: 'a = :a', condition: 'c', values: { ':a': 1 } };
    // Act
    const moved = await updateDelivery(db, WS, DELIVERY, change);
    const refused = await updateDelivery(db, WS, DELIVERY, change);
    // Assess
    expect(moved).toMatchObject({ id: DELIVERY, status: 'pending', attemptToken: null, manual: false });
    expect(refused).toBeUndefined();
    expect(dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input.ReturnValues).toBe('ALL_NEW');
  });
});

describe('what the delivery stores share', () => {
  it('a claim is stale for the message that made it once it is older than the lease (60 s)', () => {
    const stale = staleClaimOf('tok-1', '2026-11-26T10:00:00.000Z');
    expect(stale.condition).toBe('(begins_with(attemptToken, :mine) AND updatedAt < :stale)');
    expect(stale.values).toEqual({ ':mine': 'claim-tok-1.', ':stale': '2026-11-26T09:59:00.000Z' });
  });

  it("keeps only the keys in the workspace's delivery partition", () => {
    const own = { PK: `WS#${WS}#WHD`, SK: DELIVERY };
    const other = { PK: 'WS#ws_other#WHD', SK: DELIVERY };
    expect(inWorkspace(WS, [own, other, { PK: `WS#${WS}`, SK: DELIVERY }])).toEqual([own]);
  });
});
