import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_MS,
  healthChange,
  makeStreamHealthStore,
  safeReason,
  type HealthChange,
} from '../../../shared/audit-streams/delivery/stream-health.ts';
import { makeAuditStreamStore } from '../../../shared/audit-streams/stream-store.ts';
import { ENTITY } from '../../../shared/platform/store/keys.ts';
import { httpsStream, T, WS } from './worker-support.ts';

/**
 * The health store's writes as DynamoDB receives them: each outcome one UpdateItem that cannot make a stub of a
 * deleted stream, a failure that keeps the window on the item, a disabling conditional on the window it was decided
 * on, in one transaction with its audit entry.
 */

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };
const store = makeStreamHealthStore(db);
const at = new Date(T).toISOString();
const lastError = { statusCode: 500, reason: 'the receiver answered 500', at };

beforeEach(() => {
  dynamodb.reset();
});

describe('audit stream health: what an outcome changes', () => {
  it('disables exactly when the failures have lasted the scaled window', () => {
    const failed = { ok: false, statusCode: 500, reason: 'the receiver answered 500' } as const;
    // The last error written an hour ago: the once-a-minute rule does not hold the write back.
    const earlier = { ...lastError, at: new Date(T - 3_600_000).toISOString() };
    const since = (ms: number) => httpsStream({ failingSince: new Date(T - ms).toISOString(), lastError: earlier });

    expect(healthChange(since(DISABLE_AFTER_MS * 0.5), failed, T, 0.5)?.kind).toBe('disabled');
    expect(healthChange(since(DISABLE_AFTER_MS * 0.5 - 1), failed, T, 0.5)?.kind).toBe('failed');
    expect(healthChange(httpsStream(), failed, T, 1)).toEqual({ kind: 'failed', at, lastError });
  });

  it('cuts a long reason and drops any url query from it', () => {
    expect(safeReason('x'.repeat(500))).toHaveLength(200);
    expect(safeReason('blocked https://h/p?token=abc (private)')).toBe('blocked https://h/p?… (private)');
  });
});

describe('audit stream health: the store', () => {
  it('reads the stream with its health from its item', async () => {
    dynamodb.on(GetCommand).resolves({
      Item: {
        type: ENTITY.auditStream,
        streamType: 'datadog',
        id: 'as_1',
        site: 'datadoghq.eu',
        status: 'active',
        revision: 1,
        failingSince: at,
        lastError,
      },
    });

    const stream = await store.getStream(WS, 'as_1');

    expect(stream).toMatchObject({ type: 'datadog', failingSince: at, lastError });
  });

  it('a delivery sets lastDeliveredAt and removes the failure, only on a stream that still exists', async () => {
    dynamodb.on(UpdateCommand).resolves({});

    expect(await store.record(WS, 'as_1', { kind: 'delivered', at })).toBe(true);

    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      UpdateExpression: 'SET lastDeliveredAt = :at REMOVE failingSince, lastError',
      ConditionExpression: 'attribute_exists(PK)',
    });
  });

  it('a failure keeps the failingSince on the item (a window PATCH cleared starts again now)', async () => {
    dynamodb.on(UpdateCommand).resolves({});

    await store.record(WS, 'as_1', { kind: 'failed', at, lastError });

    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toBe('SET failingSince = if_not_exists(failingSince, :at), lastError = :error');
    expect(input.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('a deleted stream gets no stub back', async () => {
    dynamodb.on(UpdateCommand).rejects(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }));

    expect(await store.record(WS, 'as_1', { kind: 'delivered', at })).toBe(false);
  });

  it('disables in one transaction with the audit entry, only while active with the window it was decided on', async () => {
    dynamodb.on(TransactWriteCommand).resolves({});
    const change = healthChange(
      httpsStream({ failingSince: '2026-12-04T10:00:00.000Z' }),
      { ok: false, statusCode: null, reason: 'x' },
      T,
      1,
    );

    expect(await store.record(WS, 'as_1', change as HealthChange)).toBe(true);

    const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items[0]!.Update).toMatchObject({
      UpdateExpression: expect.stringContaining('#status = :disabled'),
      ConditionExpression: 'attribute_exists(PK) AND #status = :active AND failingSince = :since',
      ExpressionAttributeValues: expect.objectContaining({ ':since': '2026-12-04T10:00:00.000Z' }),
    });
    expect(items[0]!.Update!.UpdateExpression).toContain('#revision = #revision + :one');
    expect(items[1]!.Put!.Item).toMatchObject({ action: 'audit_stream.update', metadata: { status: 'disabled', reason: 'failing' } });
  });

  it('a disabling whose condition failed (enabled again meanwhile) writes nothing and says so', async () => {
    const cancelled = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    dynamodb.on(TransactWriteCommand).rejects(cancelled);
    const change = healthChange(
      httpsStream({ failingSince: '2026-12-04T10:00:00.000Z' }),
      { ok: false, statusCode: null, reason: 'x' },
      T,
      1,
    );

    expect(await store.record(WS, 'as_1', change as HealthChange)).toBe(false);
  });
});

describe('audit stream store: PATCH active', () => {
  it('REMOVEs failingSince rather than storing NULL (a NULL would still exist for if_not_exists)', async () => {
    dynamodb.on(TransactWriteCommand).resolves({});
    const api = makeAuditStreamStore(db, {} as never);
    const audit = {
      id: 'aud_1',
      action: 'audit_stream.update',
      actorSub: 'usr_1',
      target: 'as_1',
      metadata: {},
      createdAt: at,
      accountId: 'acc_1',
    };

    await api.updateAuditStream(WS, 'as_1', 1, { status: 'active', failingSince: null, updatedAt: at }, audit as never);

    const update = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Update!;
    expect(update.UpdateExpression).toMatch(/^SET #f0 = :f0, #f2 = :f2, #revision = :next REMOVE #f1$|REMOVE #f\d$/);
    const removed = update.UpdateExpression!.split(' REMOVE ')[1]!;
    expect(update.ExpressionAttributeNames![removed]).toBe('failingSince');
    expect(Object.values(update.ExpressionAttributeValues!)).not.toContain(null);
  });
});
