import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ServiceUnavailableError } from '../../../../shared/platform/errors.ts';
import { makeDeliveryQueue } from '../../../../shared/webhooks/deliveries/delivery-queue.ts';
import { firstAttemptToken, parseDeliveryMessage, type DeliveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import type { ScheduleInput } from '../../../../shared/webhooks/deliveries/one-time-scheduler.ts';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries';
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const MESSAGE: DeliveryMessage = {
  workspaceId: 'ws_01J00000000000000000000000',
  deliveryId: 'whd_01J00000000000000000000001',
  attemptToken: '01J00000000000000000000002',
};
const BODY = JSON.stringify(MESSAGE);

const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'eu-west-1' });
const scheduled: ScheduleInput[] = [];
const queue = makeDeliveryQueue({
  sqs,
  queueUrl: QUEUE_URL,
  scheduler: { schedule: async (input) => void scheduled.push(input) },
  clock: { now: () => NOW },
});
const sent = () => sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input);

describe('delivery queue', () => {
  beforeEach(() => {
    sqsMock.reset();
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    scheduled.length = 0;
  });

  it('sends through SQS with DelaySeconds rounded up and clamped to 0..900', async () => {
    // Prepare
    const dueAt = [NOW - 5_000, NOW, NOW + 60_001, NOW + 900_000, NOW + 900_001, NOW + 3_600_000];

    // Act
    for (const at of dueAt) await queue.enqueue(MESSAGE, { at, viaScheduler: false });

    // Assess
    expect(sent().map((input) => input.DelaySeconds)).toEqual([0, 0, 61, 900, 900, 900]);
    expect(sent()[0]).toEqual({ QueueUrl: QUEUE_URL, MessageBody: BODY, DelaySeconds: 0 });
    expect(scheduled).toHaveLength(0);
  });

  it('hands a scheduled attempt to the scheduler under an idempotent name, sending nothing to SQS', async () => {
    // Prepare
    const at = NOW + 2 * 3_600_000;

    // Act
    await queue.enqueue(MESSAGE, { at, viaScheduler: true });
    await queue.enqueue(MESSAGE, { at, viaScheduler: true });

    // Assess
    const name = `${MESSAGE.deliveryId}-${MESSAGE.attemptToken}`;
    expect(scheduled).toEqual([
      { name, at, messageBody: BODY },
      { name, at, messageBody: BODY },
    ]);
    expect(sent()).toHaveLength(0);
  });

  it('honours the caller’s channel even for a short step', async () => {
    // Act
    await queue.enqueue(MESSAGE, { at: NOW + 30_000, viaScheduler: true });
    await queue.enqueue(MESSAGE, { at: NOW + 30_000, viaScheduler: false });

    // Assess
    expect(scheduled.map((input) => input.at)).toEqual([NOW + 30_000]);
    expect(sent().map((input) => input.DelaySeconds)).toEqual([30]);
  });

  it('maps SQS throttling to SERVICE_UNAVAILABLE and refuses malformed messages before sending', async () => {
    // Prepare
    sqsMock.on(SendMessageCommand).rejects(Object.assign(new Error('slow down'), { name: 'RequestThrottled' }));

    // Act
    const throttled = queue.enqueue(MESSAGE, { at: NOW, viaScheduler: false });
    const malformed = queue.enqueue({ ...MESSAGE, attemptToken: 'x'.repeat(34) }, { at: NOW, viaScheduler: true });

    // Assess
    await expect(throttled).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(malformed).rejects.toThrow(/Invalid delivery message/);
    expect(scheduled).toHaveLength(0);
  });
});

describe('parseDeliveryMessage', () => {
  it('reads a well-formed body', () => {
    expect(parseDeliveryMessage(BODY)).toEqual(MESSAGE);
  });

  it('refuses anything else', () => {
    const bad = [
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...MESSAGE, extra: 1 }),
      JSON.stringify({ workspaceId: MESSAGE.workspaceId, deliveryId: MESSAGE.deliveryId }),
      JSON.stringify({ ...MESSAGE, workspaceId: 'proj_01J00000000000000000000000' }),
      JSON.stringify({ ...MESSAGE, deliveryId: 'whd_short' }),
      JSON.stringify({ ...MESSAGE, attemptToken: 7 }),
      JSON.stringify({ ...MESSAGE, attemptToken: '' }),
      JSON.stringify({ ...MESSAGE, attemptToken: 'has space' }),
      JSON.stringify({ ...MESSAGE, attemptToken: 'x'.repeat(34) }),
      `${BODY}${' '.repeat(1024)}`,
    ];
    for (const body of bad) expect(parseDeliveryMessage(body), body.slice(0, 80)).toBeUndefined();
  });
});

describe('delivery queue: first attempts, ten to a request', () => {
  beforeEach(() => sqsMock.reset());

  it('sends 23 messages in three SendMessageBatch requests and answers the indexes SQS refused', async () => {
    // Prepare: SQS refuses one entry of the second request, and the third request fails as a whole.
    const messages = Array.from({ length: 23 }, (_, i) => ({
      ...MESSAGE,
      deliveryId: `whd_01J000000000000000000000${String(i).padStart(2, '0')}`,
    }));
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [] })
      .resolvesOnce({ Failed: [{ Id: '13', SenderFault: false, Code: 'InternalError' }] })
      .rejectsOnce(new Error('throttled'));
    // Act
    const refused = await queue.enqueueAllNow(messages);
    // Assess
    const requests = sqsMock.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(requests.map((input) => input.Entries!.length)).toEqual([10, 10, 3]);
    expect(requests[0]!.Entries![0]).toEqual({ Id: '0', MessageBody: formatBody(messages[0]!) });
    expect(refused).toEqual([13, 20, 21, 22]);
  });

  it('a first-attempt token is fixed by the delivery id and fits a schedule name', () => {
    expect(firstAttemptToken(MESSAGE.deliveryId)).toBe(firstAttemptToken(MESSAGE.deliveryId));
    expect(firstAttemptToken(MESSAGE.deliveryId)).not.toBe(firstAttemptToken('whd_01J00000000000000000000009'));
    expect(parseDeliveryMessage(JSON.stringify({ ...MESSAGE, attemptToken: firstAttemptToken(MESSAGE.deliveryId) }))).toBeDefined();
  });
});

describe('statistics rollup message on the delivery queue', () => {
  beforeEach(() => {
    sqsMock.reset();
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  });

  it('is sent with the delay to its time, in whole seconds rounded up', async () => {
    const now = Date.parse('2026-03-02T09:42:00.000Z');
    const queue = makeDeliveryQueue({
      sqs: new SQSClient({ region: 'eu-west-1' }),
      queueUrl: 'https://sqs.example/q',
      clock: { now: () => now },
    });
    await queue.enqueueStatsRollup({ workspaceId: MESSAGE.workspaceId, rollupUntil: now }, now + 30_500);
    expect(sqsMock.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://sqs.example/q',
      MessageBody: JSON.stringify({ workspaceId: MESSAGE.workspaceId, rollupUntil: now }),
      DelaySeconds: 31,
    });
  });
});

const formatBody = (message: DeliveryMessage) =>
  JSON.stringify({ workspaceId: message.workspaceId, deliveryId: message.deliveryId, attemptToken: message.attemptToken });
