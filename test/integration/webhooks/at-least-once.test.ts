import { afterAll, describe, expect, inject, it } from 'vitest';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { systemClock } from '../../../shared/platform/clock.ts';
import { logger } from '../../../shared/platform/logger.ts';
import { makeCipher } from '../../../shared/platform/crypto/envelope.ts';
import { makeLocalKeyring } from '../../../shared/platform/crypto/local-keyring.ts';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { makeDeliveryQueue } from '../../../shared/webhooks/deliveries/delivery-queue.ts';
import { firstAttemptToken, newAttemptToken, type DeliveryMessage } from '../../../shared/webhooks/deliveries/delivery-message.ts';
import { claimOf } from '../../../shared/webhooks/deliveries/delivery-store.ts';
import { makeFanout, type FanoutDeps } from '../../../shared/webhooks/deliveries/fanout.ts';
import { makeDeliveryMetrics } from '../../../shared/webhooks/deliveries/metrics.ts';
import { sendWebhook } from '../../../shared/webhooks/deliveries/sender.ts';
import { makeSweeper } from '../../../shared/webhooks/deliveries/sweeper.ts';
import { makeWorker } from '../../../shared/webhooks/deliveries/worker.ts';
import { call, localStore } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import { join } from 'node:path';
import { toLambdaRecord } from '../../../bin/local/stream-records.ts';
import { workspaceWithEnvironment } from './support.ts';

const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** The local stack's delivery queue, from this test process. */
function stackQueue() {
  const stack = inject('stack');
  return makeDeliveryQueue({
    sqs: makeSqsClient({ endpoint: stack.sqsEndpoint }),
    queueUrl: stack.queueUrl,
    clock: { now: () => Date.now() },
  });
}

/** A secret.rotate audit record the table never had, as its stream INSERT: only the test's own fan-out sees it. */
function auditRecord(
  ws: { workspaceId: string; apiKeyId: string },
  accountId: string,
  id: string,
  createdAt: string,
  metadata: Record<string, unknown> = { key: 'K', version: 2 },
) {
  const image = {
    type: 'AuditEntry',
    id,
    action: 'secret.rotate',
    actorSub: ws.apiKeyId,
    target: 'sec_x',
    createdAt,
    workspaceId: ws.workspaceId,
    accountId,
    metadata,
  };
  return { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: marshall(image) } } as unknown as DynamoDBRecord;
}

/** The fan-out over the local stack's table, queueing through `enqueueAll`. */
const localFanout = (enqueueAll: FanoutDeps['enqueueAll']) =>
  makeFanout({
    store: localStore().store,
    enqueueAll,
    log: logger,
    clock: systemClock,
    metrics: { auditEntryChanged: () => undefined },
    references: localStore().store,
  });
/** An SQS that refuses every message it is given. */
const refusingSqs: FanoutDeps['enqueueAll'] = async (messages) => messages.map((_, i) => i);
/** The local fan-out with an SQS that accepts every message and sends none: what it queued is in `queued`. */
function collectingFanout() {
  const queued: DeliveryMessage[] = [];
  const fanout = localFanout(async (messages) => (queued.push(...messages), []));
  return { queued, fanout };
}

/** Every stream record of the local table so far, as Lambda would deliver them. */
async function streamRecords(): Promise<DynamoDBRecord[]> {
  const { dynamodbEndpoint, tableName } = inject('stack');
  const config = { endpoint: dynamodbEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const arn = (await new DynamoDBClient(config).send(new DescribeTableCommand({ TableName: tableName }))).Table!.LatestStreamArn!;
  const streams = new DynamoDBStreamsClient(config);
  const records: DynamoDBRecord[] = [];
  for (const shard of (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards!) {
    let iterator = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    for (let page = 0; iterator && page < 500; page++) {
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      records.push(...(out.Records ?? []).map((record) => toLambdaRecord(record, arn)));
      if (!out.Records?.length) break;
      iterator = out.NextShardIterator;
    }
  }
  return records;
}

describe('at-least-once bookkeeping', () => {
  it('makes no duplicate delivery and no second event id when a stream batch is processed again', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/d`, ['service.secret.create']);
    const secretId = (await write('ONCE')).body.data.id;
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id))[0]?.status === 'success');
    const batch = (await streamRecords()).filter((r) => r.dynamodb?.NewImage?.target?.S === secretId);
    expect(batch.length).toBeGreaterThan(0);
    const { queued, fanout } = collectingFanout();
    expect(await fanout(batch)).toEqual({ batchItemFailures: [] });
    expect(await fanout([...batch, ...batch])).toEqual({ batchItemFailures: [] });
    expect(queued).toEqual([]);
    const deliveries = await deliveriesOf(ws.apiKey, endpoint.id);
    expect(deliveries).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.requests).toHaveLength(1);
  });

  it('queues again, when its stream record is retried, a first attempt whose message never went out, and sends it once', async () => {
    const { ws } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    await registerEndpoint(ws.apiKey, `${receiver.origin}/s`, ['service.secret.rotate']);
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    // An audit record the table never had, so only these fan-outs see it; SQS refuses the first run's message.
    const record = auditRecord(ws, workspace!.accountId, 'aud_01M7ZJ0000000000000000SWEP', new Date().toISOString(), {
      key: 'LOST',
      version: 2,
      projectId: 'proj_x',
      environmentId: 'env_x',
    });
    const refused = localFanout(refusingSqs);
    expect(await refused([record])).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] });
    const [lost] = (await call('GET', '/api/v1/webhook-deliveries', { token: ws.apiKey })).body.data;
    expect(lost).toMatchObject({ status: 'pending', attempts: 0 });

    const queue = stackQueue();
    const retried = localFanout((messages) => queue.enqueueAllNow(messages));
    expect(await retried([record])).toEqual({ batchItemFailures: [] });
    const request = await waitFor(async () => receiver.requests[0], 20_000, 'the queued delivery');
    expect(request.headers['service-delivery-id']).toBe(lost.id);
    await waitFor(async () => (await localStore().store.getDelivery(ws.workspaceId, lost.id))?.status === 'success');
    // Seen once more, the record queues nothing: its delivery's first attempt is done.
    expect(await retried([record])).toEqual({ batchItemFailures: [] });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.requests).toHaveLength(1);
  });

  it('hands a first attempt SQS refused to the sweeper, which sends it though the endpoint dropped the event before the stream retry', async () => {
    // Prepare: SQS refuses the first run's message
    const { ws } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/handoff`, ['service.secret.rotate']);
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    const record = auditRecord(ws, workspace!.accountId, 'aud_01M7ZJ00000000000000HANDOF', new Date().toISOString(), {
      key: 'HANDOFF',
      version: 2,
      projectId: 'proj_x',
      environmentId: 'env_x',
    });
    const refused = localFanout(refusingSqs);
    expect(await refused([record])).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] });
    // Queued, it is already in its endpoint's log
    const [lost] = await deliveriesOf(ws.apiKey, endpoint.id);
    expect(lost).toMatchObject({ status: 'pending', attempts: 0 });
    // Act: the endpoint stops subscribing before the stream retry, which then queues nothing; the sweeper runs
    expect(
      (await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { events: ['service.secret.create'] } })).status,
    ).toBe(200);
    const queue = stackQueue();
    const retried = localFanout((messages) => queue.enqueueAllNow(messages));
    expect(await retried([record])).toEqual({ batchItemFailures: [] });
    const { store } = localStore();
    // (No grace period here: the hand-off made it due at once.)
    const sweep = makeSweeper({
      store,
      clock: { now: () => Date.now() },
      graceMs: 0,
      enqueue: (m, o) => queue.enqueue(m, o),
      enqueueRecovery: (m) => queue.enqueueRecovery(m),
    });
    expect((await sweep()).requeued).toBeGreaterThanOrEqual(1);
    // Assess: the delivery created for the event is sent once, not left pending for its 30 days
    const request = await waitFor(async () => receiver.requests[0], 20_000, 'the handed-off delivery');
    expect(request.headers['service-delivery-id']).toBe(lost!.id);
    await waitFor(async () => (await localStore().store.getDelivery(ws.workspaceId, lost!.id))?.status === 'success');
  });

  it('re-queues, through the sweeper, a retry whose queue message was lost, and sends it exactly once', async () => {
    const { ws } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/r`, ['service.secret.rotate']);
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    const { queued, fanout } = collectingFanout();
    await fanout([
      auditRecord(ws, workspace!.accountId, 'aud_01M7ZJ000000000000000RETRY', new Date(Date.now() - 20 * 60_000).toISOString()),
    ]);
    // A first attempt failed and scheduled its retry 10 minutes ago, and the retry's message was lost.
    const { store } = localStore();
    const [first] = queued;
    const claim = claimOf(first!.attemptToken, 'test');
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    await store.claimAttempt(ws.workspaceId, first!.deliveryId, first!.attemptToken, claim, past, { redelivered: false });
    const entry = { attempt: 1, at: past, statusCode: 503, durationMs: 5, error: 'HTTP 503' };
    expect(
      await store.recordAttempt(ws.workspaceId, first!.deliveryId, claim, entry, {
        status: 'pending',
        nextRetryAt: past,
        attemptToken: newAttemptToken(),
      }),
    ).toBeDefined();

    const queue = stackQueue();
    const sweep = makeSweeper({
      store,
      clock: { now: () => Date.now() },
      graceMs: 5 * 60_000,
      enqueue: (m, o) => queue.enqueue(m, o),
      enqueueRecovery: (m) => queue.enqueueRecovery(m),
    });
    expect((await sweep()).requeued).toBeGreaterThanOrEqual(1);
    const request = await waitFor(async () => receiver.requests[0], 20_000, 'the swept delivery');
    expect(request.headers).toMatchObject({ 'service-delivery-id': first!.deliveryId, 'service-delivery-attempt': '2' });
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id))[0]?.status === 'success');
    const before = receiver.requests.length;
    await sweep();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.requests.length).toBe(before);
    expect(before).toBe(1);
  });

  it('a first claim puts the delivery in its endpoint log and outside the sweeper; a claim by a message seen again is a lease', async () => {
    const { ws } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/lease`, ['service.secret.rotate']);
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    const { queued, fanout } = collectingFanout();
    await fanout([
      auditRecord(ws, workspace!.accountId, 'aud_01M7ZJ000000000000000LEASE', new Date(Date.now() - 20 * 60_000).toISOString()),
    ]);
    const { store } = localStore();
    const [message] = queued;
    expect(message!.attemptToken).toBe(firstAttemptToken(message!.deliveryId));
    const overdue = async () => (await store.dueDeliveries(new Date(Date.now() - 5 * 60_000).toISOString(), 1000)).map((d) => d.id);
    const claimAt = (minutesAgo: number, redelivered: boolean, random: string) =>
      store.claimAttempt(
        ws.workspaceId,
        message!.deliveryId,
        message!.attemptToken,
        claimOf(message!.attemptToken, random),
        new Date(Date.now() - minutesAgo * 60_000).toISOString(),
        { redelivered },
      );

    // The worker that claims it first dies; its claim is in the endpoint's log, and not the sweeper's.
    expect(await claimAt(3, false, 'dead')).toBeDefined();
    expect((await deliveriesOf(ws.apiKey, endpoint.id))[0]).toMatchObject({ id: message!.deliveryId, status: 'pending', attempts: 0 });
    expect(await overdue()).not.toContain(message!.deliveryId);
    // SQS shows the message again: it takes the stale claim over, as a lease the sweeper honours for its grace period.
    expect(await claimAt(0, true, 'again')).toBeDefined();
    expect(await claimAt(0, true, 'duplicate')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await overdue()).not.toContain(message!.deliveryId);
    expect((await store.dueDeliveries(new Date(Date.now() + 60_000).toISOString(), 1000)).map((d) => d.id)).toContain(message!.deliveryId);
  });

  it('refuses, at delivery, a hostname that resolves to 127.0.0.1 when loopback is not exempted', async () => {
    const { ws } = await workspaceWithEnvironment();
    const receiver = await startReceiver();
    receivers.push(receiver);
    // Registered while the local stack exempts loopback; delivered by a worker with the production setting (no exemption).
    const endpoint = await registerEndpoint(ws.apiKey, `https://localhost:${receiver.port}/h`, ['service.secret.rotate']);
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    const { queued, fanout } = collectingFanout();
    await fanout([auditRecord(ws, workspace!.accountId, 'aud_01M7ZJ000000000000000BLOCK', new Date().toISOString())]);
    expect(queued).toHaveLength(1);
    const later: unknown[] = [];
    const worker = makeWorker({
      store: localStore().store,
      cipher: makeCipher({ keys: makeLocalKeyring({ keyFile: join(inject('localDir'), 'master.key') }) }),
      clock: { now: () => Date.now() },
      send: (request) => sendWebhook({ ...request, allow: [] }),
      enqueue: async (m) => void later.push(m),
      timeScale: 1,
      metrics: makeDeliveryMetrics(),
      log: logger,
    });
    expect(await worker(queued[0]!)).toBe('retry');
    const [delivery] = await deliveriesOf(ws.apiKey, endpoint.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      statusCode: null,
      lastError: 'blocked: localhost resolves to 127.0.0.1 (loopback)',
    });
    expect(receiver.connections()).toBe(0);
    expect(later).toHaveLength(1);
    // The old message no longer matches the delivery: a second copy is dropped without a send.
    expect(await worker(queued[0]!)).toBe('dropped');
  });
});
