import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { startSqsPoller } from '../../../bin/local/sqs-poller.ts';
import { LOCAL_DELIVERY_DLQ, LOCAL_DELIVERY_QUEUE, startLocalSqs, type LocalSqs } from '../../../bin/local/sqs.ts';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { makeDeliveryQueue } from '../../../shared/webhooks/deliveries/delivery-queue.ts';
import { waitFor } from './support.ts';

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

let running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of running.reverse()) await item.stop();
  running = [];
});

/** A fresh emulator per test (1 s visibility, so failed messages come back quickly) and a poller recording every record. */
async function setup(handler: Handler, options: { maxReceiveCount?: number; concurrency?: number; batchSize?: number } = {}) {
  const local = await startLocalSqs({ visibilityTimeoutSeconds: 1, maxReceiveCount: options.maxReceiveCount ?? 5 });
  const sqs = makeSqsClient({ endpoint: local.endpoint, region: local.region });
  running.push(local, { stop: async () => sqs.destroy() });
  const seen: SQSRecord[] = [];
  const start = () => {
    const poller = startSqsPoller({
      sqs,
      queueUrl: local.queueUrl,
      queueArn: local.queueArn,
      concurrency: options.concurrency ?? 1,
      batchSize: options.batchSize ?? 10,
      handler: async (event) => {
        seen.push(...event.Records);
        return handler(event);
      },
    });
    running.push(poller);
    return poller;
  };
  return { local, sqs, seen, start };
}

const send = (sqs: SQSClient, local: LocalSqs, body: string) =>
  sqs.send(
    new SendMessageCommand({
      QueueUrl: local.queueUrl,
      MessageBody: body,
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
    }),
  );
const bodies = (records: SQSRecord[]) => records.map((record) => record.body);
const queueIsEmpty = (local: LocalSqs) => {
  const { ready, delayed, inflight } = local.server.inspectQueue(LOCAL_DELIVERY_QUEUE)!.messages;
  return ready.length + delayed.length + inflight.length === 0;
};

describe('local SQS event source mapping', { timeout: 30_000 }, () => {
  it('builds Lambda SQS records and deletes exactly the messages that did not fail', async () => {
    // Prepare
    let first = true;
    const { local, sqs, seen, start } = await setup(async (event) => {
      if (!first) return;
      first = false;
      return {
        batchItemFailures: event.Records.filter((record) => record.body === 'b').map((record) => ({ itemIdentifier: record.messageId })),
      };
    });
    for (const body of ['a', 'b', 'c']) await send(sqs, local, body);

    // Act
    start();
    await waitFor(() => seen.length >= 4, 5_000, 'the failed message to come back');
    await waitFor(() => queueIsEmpty(local), 2_000, 'the queue to drain');

    // Assess
    expect(bodies(seen).sort()).toEqual(['a', 'b', 'b', 'c']);
    expect(seen.at(-1)).toMatchObject({ body: 'b', attributes: { ApproximateReceiveCount: '2' } });
    expect(seen[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: local.queueArn,
      awsRegion: 'local',
      md5OfBody: expect.stringMatching(/^[0-9a-f]{32}$/),
      messageAttributes: { kind: { dataType: 'String', stringValue: 'test', stringListValues: [], binaryListValues: [] } },
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.any(String),
        SenderId: expect.any(String),
      },
    });
  });

  it('deletes nothing when the handler throws, and counts an unknown itemIdentifier as a whole-batch failure', async () => {
    // Prepare
    let calls = 0;
    const { local, sqs, seen, start } = await setup(async () => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
      if (calls === 2) return { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] };
    });
    for (const body of ['x', 'y']) await send(sqs, local, body);

    // Act
    start();
    await waitFor(() => queueIsEmpty(local) && seen.length >= 6, 20_000, 'three rounds of the batch');

    // Assess
    expect(bodies(seen).sort()).toEqual(['x', 'x', 'x', 'y', 'y', 'y']);
    expect(seen.filter((record) => record.body === 'x').map((record) => record.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('delivers a delayed message only after its delay', async () => {
    // Prepare
    const arrivals: number[] = [];
    const { local, sqs, start } = await setup(async () => void arrivals.push(Date.now()));
    const queue = makeDeliveryQueue({
      sqs,
      queueUrl: local.queueUrl,
      scheduler: { schedule: async () => undefined },
      clock: { now: () => Date.now() },
    });
    start();
    const sentAt = Date.now();

    // Act
    const message = { workspaceId: 'ws_01J00000000000000000000000', deliveryId: 'whd_01J00000000000000000000001', attemptToken: 'tok_1' };
    await queue.enqueue(message, { at: sentAt + 2_000, viaScheduler: false });
    await waitFor(() => arrivals.length > 0, 5_000, 'the delayed message');

    // Assess
    expect(arrivals[0]! - sentAt).toBeGreaterThanOrEqual(2_000);
  });

  it('leaves redrive to the queue: after maxReceiveCount failed receives the message is in the DLQ', async () => {
    // Prepare
    const { local, sqs, seen, start } = await setup(
      async () => {
        throw new Error('always');
      },
      { maxReceiveCount: 2 },
    );
    await send(sqs, local, 'poison');

    // Act
    start();
    await waitFor(() => local.server.inspectQueue(LOCAL_DELIVERY_DLQ)!.messages.ready.length > 0, 20_000, 'the message in the DLQ');

    // Assess
    expect(seen.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(local.server.inspectQueue(LOCAL_DELIVERY_DLQ)!.messages.ready.map((message) => message.body)).toEqual(['poison']);
    expect(queueIsEmpty(local)).toBe(true);
  });

  it('runs pollers concurrently, and stop() waits for the batches in flight before resolving', async () => {
    // Prepare
    let started = 0;
    let active = 0;
    let peak = 0;
    let finished = 0;
    const { local, sqs, start } = await setup(
      async (event) => {
        started += event.Records.length;
        active += 1;
        peak = Math.max(peak, active);
        await sleep(300);
        active -= 1;
        finished += event.Records.length;
      },
      { concurrency: 3, batchSize: 1 },
    );
    const poller = start();
    for (const body of ['1', '2', '3']) await send(sqs, local, body);
    await waitFor(() => started === 3, 2_000, 'every message in a handler');

    // Act
    await poller.stop();

    // Assess
    expect(peak).toBe(3);
    expect(active).toBe(0);
    expect(finished).toBe(3);
    expect(queueIsEmpty(local)).toBe(true);
  });
});
