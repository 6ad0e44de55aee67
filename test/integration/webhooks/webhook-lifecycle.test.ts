import { afterAll, describe, expect, inject, it } from 'vitest';
import Stripe from 'stripe';
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
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import { join } from 'node:path';
import { toLambdaRecord } from '../../../bin/local/stream-records.ts';

const stripe = new Stripe('sk_test_unused');
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function workspaceWithEnvironment() {
  const ws = await newWorkspace();
  const { environment } = await newEnvironment(ws.apiKey, { project: 'life', environment: 'prod' });
  const write = (key: string) =>
    call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } });
  return { ws, write };
}

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
  makeFanout({ store: localStore().store, enqueueAll, log: logger, clock: systemClock, metrics: { auditEntryChanged: () => undefined } });
/** An SQS that refuses every message it is given. */
const refusingSqs: FanoutDeps['enqueueAll'] = async (messages) => messages.map((_, i) => i);
/** The local fan-out with an SQS that accepts every message and sends none: what it queued is in `queued`. */
function collectingFanout() {
  const queued: DeliveryMessage[] = [];
  const fanout = localFanout(async (messages) => (queued.push(...messages), []));
  return { queued, fanout };
}

describe('endpoint switch-off and pause', () => {
  it('switches off an endpoint after 20 failures spanning the (scaled) 24 hours, fails its queue and tells the other endpoint', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const failing = await startReceiver({ status: 503 });
    const watcher = await startReceiver();
    receivers.push(failing, watcher);
    const bad = await registerEndpoint(ws.apiKey, `${failing.origin}/bad`, ['service.secret.create']);
    const good = await registerEndpoint(ws.apiKey, `${watcher.origin}/watch`, ['service.webhook_endpoint.disabled']);
    // Events keep coming, so failures go on past the (scaled) 24-hour window.
    let writes = 0;
    const writing = (async () => {
      for (; writes < 40; writes++) {
        const endpoint = await localStore().store.getEndpoint(ws.workspaceId, bad.id);
        if (!endpoint?.enabled) return;
        await write(`K${writes}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    // A short outage never switches off: 20 failures within the window leave the endpoint on.
    const streak = await waitFor(
      async () => {
        const endpoint = await localStore().store.getEndpoint(ws.workspaceId, bad.id);
        return endpoint && endpoint.consecutiveFailures >= 20 ? endpoint : undefined;
      },
      30_000,
      '20 failures',
    );
    if (Date.now() - Date.parse(streak.failingSince!) < 0.8 * 86_400_000 * 0.0001) expect(streak.enabled).toBe(true);

    const off = await waitFor(
      async () => {
        const list = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data as { id: string; enabled: boolean }[];
        return list.find((e) => e.id === bad.id && !e.enabled);
      },
      40_000,
      'the switch-off',
    );
    await writing;
    expect(off).toMatchObject({
      enabled: false,
      disabledAt: expect.any(String),
      disabledReason: expect.stringMatching(/failed attempts in a row/),
    });
    expect((off as unknown as { consecutiveFailures: number }).consecutiveFailures).toBeGreaterThanOrEqual(20);
    expect(
      Date.parse((off as unknown as { disabledAt: string }).disabledAt) -
        Date.parse((off as unknown as { failingSince: string }).failingSince),
    ).toBeGreaterThanOrEqual(86_400_000 * 0.0001);

    const notice = await waitFor(async () => watcher.requests[0], 20_000, 'the disabled event');
    const event = stripe.webhooks.constructEvent(
      notice.body,
      notice.headers['service-signature'] as string,
      good.secret,
    ) as unknown as Record<string, any>;
    expect(event.type).toBe('service.webhook_endpoint.disabled');
    expect(event.data).toMatchObject({
      endpointId: bad.id,
      url: bad.url,
      disabledReason: expect.any(String),
      consecutiveFailures: expect.any(Number),
      failingSince: expect.any(String),
    });
    const deliveries = await waitFor(
      async () => {
        const list = await deliveriesOf(ws.apiKey, bad.id);
        return list.every((d) => d.status === 'failed') ? list : undefined;
      },
      10_000,
      'the queue to fail',
    );
    // Writes fanned out after the switch-off make no delivery for it.
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    expect(deliveries.length).toBeLessThanOrEqual(writes);
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { action: 'webhook_endpoint.disabled' });
    expect(audit.items[0]).toMatchObject({ target: bad.id, actorSub: 'system' });

    // Enabling again clears the streak; no event went to the switched-off endpoint itself.
    const enabled = await call('PATCH', `/api/v1/webhooks/${bad.id}`, { token: ws.apiKey, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
    });
    expect(failing.requests.every((r) => r.headers['service-event-type'] === 'service.secret.create')).toBe(true);
  }, 90_000);

  it('pausing fails queued deliveries, queues nothing while paused, and re-enabling clears the streak', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const receiver = await startReceiver({ status: 500 });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/p`, ['service.secret.create']);
    await write('BEFORE');
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.attempts >= 1 && d.status === 'pending'));
    const paused = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    expect(paused.body.data).toMatchObject({ enabled: false, disabledReason: 'paused', consecutiveFailures: expect.any(Number) });
    // Failed at once, or, if an attempt was in flight, as soon as it has recorded its result.
    const failed = await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.status === 'failed'), 15_000);
    expect(failed).toMatchObject({ status: 'failed', nextRetryAt: null });
    expect(failed.lastError).toMatch(/^endpoint (paused|disabled)$/);
    const sent = receiver.requests.length;
    await write('WHILE_PAUSED');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await deliveriesOf(ws.apiKey, endpoint.id)).toHaveLength(1);
    expect(receiver.requests.length).toBe(sent);
    const resumed = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: true } });
    expect(resumed.body.data).toMatchObject({ enabled: true, consecutiveFailures: 0, failingSince: null, disabledAt: null });
  }, 30_000);
});

describe('pause during an attempt', () => {
  it('lets an attempt in flight finish and record its result, then fails the delivery', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const receiver = await startReceiver({ hang: true });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/slow`, ['service.secret.create']);
    await write('IN_FLIGHT');
    await waitFor(async () => receiver.requests.length > 0, 20_000, 'the attempt to start');
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    expect((await deliveriesOf(ws.apiKey, endpoint.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    const failed = await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.status === 'failed'), 25_000);
    expect(failed.attemptLog).toEqual([expect.objectContaining({ attempt: 1, error: 'timed out after 10 s' })]);
    expect(failed.lastError).toBe('endpoint disabled');
    expect(receiver.requests).toHaveLength(1);
  }, 40_000);
});

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

describe('delivery log API', () => {
  it('lists the workspace deliveries newest first with endpoint, status and event type filters', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const ok = await startReceiver();
    const bad = await startReceiver({ status: 404 });
    receivers.push(ok, bad);
    const a = await registerEndpoint(ws.apiKey, `${ok.origin}/a`, ['service.secret.create', 'service.secret.rotate']);
    const b = await registerEndpoint(ws.apiKey, `${bad.origin}/b`, ['service.secret.create']);
    await write('ONE');
    await write('ONE');
    await waitFor(
      async () => (await call('GET', '/api/v1/webhook-deliveries?status=success', { token: ws.apiKey })).body.data.length === 2,
    );
    const all = (await call('GET', '/api/v1/webhook-deliveries', { token: ws.apiKey })).body.data as {
      id: string;
      endpointId: string;
      eventType: string;
      attemptLog: unknown[];
    }[];
    expect(all).toHaveLength(3);
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort().reverse());
    expect(all.every((d) => Array.isArray(d.attemptLog))).toBe(true);
    const byEndpoint = await call('GET', `/api/v1/webhook-deliveries?endpointId=${b.id}`, { token: ws.apiKey });
    expect(byEndpoint.body.data.map((d: { endpointId: string }) => d.endpointId)).toEqual([b.id]);
    const rotations = await call('GET', '/api/v1/webhook-deliveries?eventType=service.secret.rotate', { token: ws.apiKey });
    expect(rotations.body.data).toHaveLength(1);
    expect(rotations.body.data[0].endpointId).toBe(a.id);
    const page = await call('GET', '/api/v1/webhook-deliveries?limit=2', { token: ws.apiKey });
    const next = await call('GET', `/api/v1/webhook-deliveries?limit=2&cursor=${encodeURIComponent(page.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    expect([...page.body.data, ...next.body.data].map((d: { id: string }) => d.id)).toEqual(all.map((d) => d.id));
    for (const query of ['limit=0', 'limit=201', 'status=done', 'endpointId=x', 'eventType=']) {
      expect((await call('GET', `/api/v1/webhook-deliveries?${query}`, { token: ws.apiKey })).status, query).toBe(400);
    }
  }, 30_000);
});
