import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { logger } from '../../shared/platform/logger.ts';
import { attributeCalls } from './instrumentation.ts';

/** A Lambda handler as an event source mapping calls it. */
export type BatchHandler<E, R> = (event: E, context: Context) => Promise<R | void>;

/** The context Lambda passes with an invocation; `getRemainingTimeInMillis` counts down from `timeoutMs`. */
export function localLambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Calls a handler as Lambda would: a timeout is a failed invocation (the handler itself cannot be stopped here). */
export async function invokeLambda<E, R>(
  handler: BatchHandler<E, R>,
  event: E,
  functionName: string,
  timeoutMs: number,
): Promise<R | void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`Task timed out after ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
  });
  try {
    // Requests the function makes are attributed to it (see bin/local/instrumentation.ts).
    return await Promise.race([attributeCalls(functionName, () => handler(event, localLambdaContext(functionName, timeoutMs))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The identifiers a ReportBatchItemFailures response names, or 'all' when Lambda would treat the whole batch as
 * failed: a response that is not an object, or an item identifier that is missing, empty or not in the batch.
 * No response, no `batchItemFailures` or an empty list is complete success.
 */
export function failedItems(response: unknown, batchIds: readonly string[]): Set<string> | 'all' {
  if (response === undefined || response === null) return new Set();
  if (typeof response !== 'object') return 'all';
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const known = new Set(batchIds);
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !known.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

/** A name and message only: handler errors are the service's own and are logged the same way in AWS. */
export function describeError(error: unknown): { errorName: string; errorMessage: string } {
  const e = error as { name?: unknown; message?: unknown } | null;
  return { errorName: String(e?.name ?? 'Error'), errorMessage: String(e?.message ?? error) };
}

function toRecord(message: Message, queueArn: string): SQSRecord {
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'local',
  };
}

/** The queue, the handler and the event source mapping's settings. */
export interface SqsPollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: BatchHandler<SQSEvent, SQSBatchResponse>;
  /** Messages per invocation, 1–10 (default 10). */
  batchSize?: number;
  /** Pollers, each receiving and invoking in turn: the function's concurrency (default 2). */
  concurrency?: number;
  /** Long-poll wait (default 20 s, as Lambda's pollers). */
  waitTimeSeconds?: number;
  /** Name in the Lambda context and the logs (default `webhook-worker`). */
  functionName?: string;
  /** Invocation timeout: past it the batch counts as failed (default 30 s). */
  timeoutMs?: number;
}

/**
 * Lambda's SQS event source mapping on this machine, with ReportBatchItemFailures: each poller long-polls, invokes
 * the handler with real SQSEvent records and deletes the messages that succeeded. A thrown error (or a response
 * Lambda would reject) deletes nothing, so the batch returns after the visibility timeout and the queue's
 * RedrivePolicy eventually moves it to the DLQ. Poll errors are logged and backed off; the pollers never stop on their
 * own. `stop()` ends polling and waits for batches in flight.
 */
export function startSqsPoller(options: SqsPollerOptions): { stop(): Promise<void> } {
  const settings = {
    batchSize: Math.min(10, Math.max(1, options.batchSize ?? 10)),
    waitTimeSeconds: options.waitTimeSeconds ?? 20,
    functionName: options.functionName ?? 'webhook-worker',
    timeoutMs: options.timeoutMs ?? 30_000,
  };
  const abort = new AbortController();
  const log = logger.child({ component: 'local-sqs-poller', functionName: settings.functionName });

  async function receive(): Promise<Message[]> {
    const command = new ReceiveMessageCommand({
      QueueUrl: options.queueUrl,
      MaxNumberOfMessages: settings.batchSize,
      WaitTimeSeconds: settings.waitTimeSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    });
    const answer = await options.sqs.send(command, { abortSignal: abort.signal });
    return answer.Messages ?? [];
  }

  async function runBatch(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((message) => toRecord(message, options.queueArn)) };
    const ids = event.Records.map((record) => record.messageId);
    let failed: Set<string> | 'all';
    try {
      failed = failedItems(await invokeLambda(options.handler, event, settings.functionName, settings.timeoutMs), ids);
    } catch (error) {
      log.warn('Batch failed; its messages return after the visibility timeout', { messageIds: ids, ...describeError(error) });
      return;
    }
    if (failed === 'all') {
      log.warn('Invalid batch response; the whole batch counts as failed', { messageIds: ids });
      return;
    }
    const done = event.Records.filter((record) => !failed.has(record.messageId));
    if (done.length === 0) return;
    const entries = done.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle }));
    try {
      const answer = await options.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: entries }));
      if (answer.Failed?.length)
        log.warn('Some processed messages could not be deleted and will be redelivered', { count: answer.Failed.length });
    } catch (error) {
      log.warn('Processed messages could not be deleted and will be redelivered', { messageIds: ids, ...describeError(error) });
    }
  }

  async function pollLoop(): Promise<void> {
    let pollFailures = 0;
    while (!abort.signal.aborted) {
      let messages: Message[];
      try {
        messages = await receive();
        pollFailures = 0;
      } catch (error) {
        if (abort.signal.aborted) break;
        pollFailures += 1;
        log.warn('Polling the queue failed; backing off', { attempt: pollFailures, ...describeError(error) });
        await sleep(Math.min(5_000, 100 * 2 ** pollFailures), undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      if (messages.length > 0) await runBatch(messages);
    }
  }

  const loops = Array.from({ length: Math.max(1, options.concurrency ?? 2) }, () => pollLoop());
  return {
    async stop() {
      abort.abort();
      await Promise.all(loops);
    },
  };
}
