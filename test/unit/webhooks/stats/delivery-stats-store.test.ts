import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ulid } from 'ulid';
import {
  isLate,
  lateStatsChange,
  recordLateStats,
  rollableUntil,
  statsHour,
  STATS_RETENTION_SECONDS,
} from '../../../../shared/webhooks/stats/delivery-stats-store.ts';
import { baseUpdate } from '../../../../shared/webhooks/stats/stats-rollup-store.ts';
import { makeDeliveryStatsReader } from '../../../../shared/webhooks/stats/delivery-stats-read-store.ts';
import { makeDeliveryApiStore, makeDeliveryWorkerStore } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import { makeDeliveryFanoutStore } from '../../../../shared/webhooks/deliveries/delivery-pipeline-store.ts';
import type { Pager } from '../../../../shared/platform/store/pager.ts';
import { ENTITY } from '../../../../shared/platform/store/keys.ts';
import { DURATION_BINS } from '../../../../shared/webhooks/stats/stats-histogram.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };
const WS = 'ws_01JX0000000000000000000000';
const WE = 'we_01JX0000000000000000000000';
const HOUR_START = Date.parse('2026-11-26T09:00:00.000Z') / 1000;
/** A delivery created at 09:41:07.123, in the bucket 09:40 to 09:42: its changes are late from 09:42:15. */
const CREATED = Date.parse('2026-11-26T09:41:07.123Z');
const DELIVERY = `whd_${ulid(CREATED)}`;
const CUTOFF = Date.parse('2026-11-26T09:42:15.000Z');

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
});

describe('delivery statistics: what each change of a delivery writes', () => {
  const audit = {
    id: 'aud_01',
    action: 'webhook_delivery.retry' as const,
    actorSub: 'key_x',
    target: DELIVERY,
    metadata: {},
    createdAt: '2026-11-28T10:00:00.000Z',
    accountId: 'acc_x',
  };
  const retry = (status: 'success' | 'failed', now: number) =>
    makeDeliveryApiStore(db, {} as Pager).retryNow(
      WS,
      { id: DELIVERY, endpointId: WE, createdAt: new Date(CREATED).toISOString(), status },
      'tok',
      new Date(now).toISOString(),
      audit,
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
