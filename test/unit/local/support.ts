import { setTimeout as sleep } from 'node:timers/promises';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Polls `check` until it answers a value that is not undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Every message that arrives on the queue within `waitMs` (deleted as they are read, by visibility only). */
export async function receiveFor(sqs: SQSClient, queueUrl: string, waitMs: number): Promise<{ body: string; at: number }[]> {
  const received: { body: string; at: number }[] = [];
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 60 }),
    );
    for (const message of answer.Messages ?? []) received.push({ body: message.Body ?? '', at: Date.now() });
  }
  return received;
}
