import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AuditEntry } from '../../audit/index.ts';

/**
 * The audit stream queue (decisions.md v1.4, "Audit streams and tamper evidence"): one message is some audit entries
 * of one workspace for one stream, put by the stream fan-out as it reads the table's stream (at most
 * `MAX_MESSAGE_BYTES` of entries a message, so an SQS message's 256 KiB always holds one), and again by the worker
 * for a batch its receiver refused, delayed on the retry schedule. The worker merges the messages of a stream it
 * receives together into batches of at most 500 entries or 1 MB (delivery/stream-batches.ts).
 */
export interface StreamMessage {
  workspaceId: string;
  streamId: string;
  /** The entries as the audit log stores them (with their account): the worker answers them as the API does. */
  entries: AuditEntry[];
  /** The attempt, for the retry schedule (1 for the first). */
  attempt: number;
  /** A retry due later than SQS can delay a message (15 minutes): queued again, delayed, until then (epoch ms). */
  notBefore?: number;
}

/** The most of entries' JSON one message carries, well inside SQS's 256 KiB with the message's other fields. */
export const MAX_MESSAGE_BYTES = 200_000;

/** SQS's most messages in one SendMessageBatch. */
const SEND_BATCH = 10;

/** Parses a queued body; undefined for one that is not a stream message (logged and dropped by the worker). */
export function parseStreamMessage(body: string): StreamMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const m = value as Partial<StreamMessage> | null;
  if (!m || typeof m.workspaceId !== 'string' || typeof m.streamId !== 'string' || !Array.isArray(m.entries)) return undefined;
  if (typeof m.attempt !== 'number' || !Number.isInteger(m.attempt) || m.attempt < 1) return undefined;
  if (m.notBefore !== undefined && typeof m.notBefore !== 'number') return undefined;
  if (!m.entries.every((entry) => typeof (entry as Partial<AuditEntry> | null)?.id === 'string')) return undefined;
  const message: StreamMessage = { workspaceId: m.workspaceId, streamId: m.streamId, entries: m.entries, attempt: m.attempt };
  return m.notBefore === undefined ? message : { ...message, notBefore: m.notBefore };
}

/**
 * The messages that carry `entries` for one stream: in order, each at most `MAX_MESSAGE_BYTES` of entries' JSON (an
 * entry alone never passes it: an item holds at most 400 KB, and an audit entry is a few hundred bytes).
 */
export function streamMessages(workspaceId: string, streamId: string, entries: readonly AuditEntry[], attempt = 1): StreamMessage[] {
  const messages: StreamMessage[] = [];
  let current: AuditEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (current.length > 0 && bytes + size > MAX_MESSAGE_BYTES) {
      messages.push({ workspaceId, streamId, entries: current, attempt });
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) messages.push({ workspaceId, streamId, entries: current, attempt });
  return messages;
}

/** Puts stream messages on the queue, now or after up to 15 minutes (SQS DelaySeconds). */
export interface StreamQueue {
  /** Answers the indexes of the messages SQS did not take (the caller fails its record, and the stream retries it). */
  enqueueAll(messages: readonly StreamMessage[], delaySeconds?: number): Promise<number[]>;
}

/** The audit stream queue over SQS: SendMessageBatch, 10 messages a request. */
export function makeStreamQueue(deps: { sqs: SQSClient; queueUrl: string }): StreamQueue {
  return {
    async enqueueAll(messages, delaySeconds = 0) {
      const refused: number[] = [];
      for (let start = 0; start < messages.length; start += SEND_BATCH) {
        const chunk = messages.slice(start, start + SEND_BATCH);
        const out = await deps.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: deps.queueUrl,
            Entries: chunk.map((message, i) => ({
              Id: String(i),
              MessageBody: JSON.stringify(message),
              DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))),
            })),
          }),
        );
        for (const failed of out.Failed ?? []) refused.push(start + Number(failed.Id));
      }
      return refused;
    },
  };
}
