import { beforeEach, describe, expect, it } from 'vitest';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import type { Recovery } from '../../../../shared/webhooks/recovery/recovery-store.ts';
import { makeRecoveryWorkerStore } from '../../../../shared/webhooks/recovery/recovery-worker-store.ts';
import { conditionFailed, CREATED, CUTOFF, DELIVERY, mockedDb, WE, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();
const store = makeRecoveryWorkerStore(db);
const RECOVERY: Recovery = {
  id: 'aud_01JX0000000000000000000000',
  endpointId: WE,
  fromId: `whd_${ulid(CREATED - 3_600_000)}`,
  toId: `whd_${ulid(CREATED + 3_600_000)}`,
  since: new Date(CREATED - 3_600_000).toISOString(),
  until: new Date(CREATED + 3_600_000).toISOString(),
  expected: 3,
  queued: 0,
  cursor: null,
  step: 2,
  status: 'running',
  createdAt: new Date(CREATED).toISOString(),
  updatedAt: new Date(CREATED).toISOString(),
};

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('what the worker does to run a recovery', () => {
  it('queues a failed delivery of the endpoint again, only while it is failed and the endpoint its own', async () => {
    // Prepare
    dynamodb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { id: DELIVERY, endpointId: WE, status: 'pending', attemptToken: 'tok-2', manual: true } });
    const now = new Date(CUTOFF - 1).toISOString();
    // Act
    const requeued = await store.requeueFailed(WS, DELIVERY, WE, 'tok-2', now);
    // Assess
    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `WS#${WS}#WHD`, SK: DELIVERY });
    expect(input.ConditionExpression).toBe('#status = :failed AND endpointId = :endpoint');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':failed': 'failed', ':endpoint': WE, ':token': 'tok-2', ':now': now });
    expect(input.UpdateExpression).toMatch(/^SET #status = :pending, .*manual = :true.* REMOVE GSI4PK, GSI4SK$/);
    expect(requeued).toMatchObject({ id: DELIVERY, attemptToken: 'tok-2', manual: true, lateCounted: false });
  });

  it("after its bucket's cutoff, leaves the delivery's state for the rollup in the same write", async () => {
    await store.requeueFailed(WS, DELIVERY, WE, 'tok-2', new Date(CUTOFF).toISOString());
    expect(dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input.UpdateExpression).toMatch(/^SET rollupStatus = if_not_exists/);
  });

  it('answers undefined for a delivery that is no longer failed (queued by someone else)', async () => {
    dynamodb.on(UpdateCommand).rejectsOnce(conditionFailed());
    expect(await store.requeueFailed(WS, DELIVERY, WE, 'tok-2', new Date(CUTOFF).toISOString())).toBeUndefined();
  });

  it('takes deliveries queued again out of the failed count of their bucket and hour, as a late change', async () => {
    // Act
    await store.uncountFailed(WS, WE, CREATED, 3);
    // Assess
    const inputs = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.Key!.SK)).toEqual([`STATB#${WE}#2026-11-26T09:40`, `STAT#${WE}#2026-11-26T09`]);
    for (const input of inputs) expect(input.ExpressionAttributeValues).toMatchObject({ ':failed': -3 });
  });

  it("reads a page of the endpoint's failed list from the cursor on, keeping only the workspace's deliveries", async () => {
    // Prepare
    const other = `whd_${ulid(CREATED + 1)}`;
    dynamodb.on(QueryCommand).resolves({
      Items: [
        { PK: `WS#${WS}#WHD`, SK: DELIVERY },
        { PK: 'WS#ws_other#WHD', SK: other },
      ],
      LastEvaluatedKey: { PK: 'x' },
    });
    // Act
    const page = await store.failedPage(WS, { ...RECOVERY, cursor: DELIVERY }, 2);
    // Assess
    expect(page).toEqual({ ids: [DELIVERY], last: other, more: true });
    const input = dynamodb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input.Limit).toBe(2);
    expect(input.ExclusiveStartKey).toMatchObject({ PK: `WS#${WS}#WHD`, SK: DELIVERY });
  });

  it('moves the recovery on only from the step it is at, off the sweeper index once it ends', async () => {
    // Act
    expect(await store.advanceRecovery(WS, RECOVERY, { cursor: DELIVERY, queued: 2, status: 'running', now: 'T1' })).toBe(true);
    expect(await store.advanceRecovery(WS, RECOVERY, { cursor: DELIVERY, queued: 1, status: 'done', now: 'T2' })).toBe(true);
    dynamodb.on(UpdateCommand).rejectsOnce(conditionFailed());
    const lost = await store.advanceRecovery(WS, RECOVERY, { cursor: null, queued: 0, status: 'done', now: 'T3' });
    // Assess
    const [running, done] = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(running!.ConditionExpression).toBe('step = :step AND #status = :running');
    expect(running!.ExpressionAttributeValues).toMatchObject({ ':step': 2, ':next': 3, ':queued': 2 });
    expect(running!.UpdateExpression).toContain('GSI2SK = :gsk');
    expect(done!.UpdateExpression).toMatch(/REMOVE GSI2PK, GSI2SK$/);
    expect(lost).toBe(false);
  });
});
