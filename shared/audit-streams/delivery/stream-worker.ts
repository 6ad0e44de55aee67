import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Db } from '../../platform/store/send.ts';
import type { AuditStreamRecord } from '../stream-records.ts';
import { enqueued, makeStreamDelivery, type StreamDeliveryDeps } from './stream-delivery.ts';
import type { OpenedStream } from './stream-formats.ts';
import { makeStreamHealthStore } from './stream-health.ts';
import { makeStreamQueue, parseStreamMessage, type StreamMessage } from './stream-queue.ts';
import { guardedStreamSender, type GuardedTransport } from './stream-sender.ts';

/**
 * The audit stream worker (decisions.md v1.4, "Audit streams and tamper evidence"): an SQS batch of stream messages,
 * each stream's messages delivered together (stream-delivery.ts), so a burst of entries goes out in a few full
 * batches rather than one request per message. Modelled on the sync worker (shared/syncs/worker-wiring.ts).
 */

/** The `openCredentials` part over the service's cipher, for the wiring (this module is the feature's entry for it). */
export { streamOpener } from './stream-open.ts';

/** What the worker is built from, once per container. */
export interface StreamWorkerParts {
  db: Db;
  sqs: SQSClient;
  /** The audit stream queue, which retries go back to. */
  queueUrl: string;
  clock: Clock;
  log: Logger;
  /** WEBHOOK_TIME_SCALE (config.webhooks.timeScale). */
  timeScale: number;
  /** The webhooks' SSRF guard's open ranges (config.webhooks.allowPrivateCidrs). */
  allowPrivateCidrs: string | undefined;
  /** Unseals a stream's credentials: the service's cipher under the stream credential context (stream-open.ts). */
  openCredentials: (workspaceId: string, stream: AuditStreamRecord) => Promise<OpenedStream>;
  /** The guarded request (default shared/net's); tests give their own. */
  transport?: GuardedTransport;
  /** Counts a stream the delivery disabled. */
  onDisabled?: () => void;
  /** Counts a batch a receiver did not take. */
  onFailed?: () => void;
}

/** The worker's SQS handler over the table, the queue and the guarded sender. */
export function streamWorkerOf(parts: StreamWorkerParts) {
  if (!parts.queueUrl) throw new Error('Invalid configuration: the audit stream queue url is required for the audit stream worker');
  return makeStreamWorker({
    streams: makeStreamHealthStore(parts.db),
    queue: makeStreamQueue({ sqs: parts.sqs, queueUrl: parts.queueUrl }),
    openCredentials: parts.openCredentials,
    send: guardedStreamSender(parts.allowPrivateCidrs, parts.transport),
    clock: parts.clock,
    log: parts.log,
    timeScale: parts.timeScale,
    ...(parts.onDisabled && { onDisabled: parts.onDisabled }),
    ...(parts.onFailed && { onFailed: parts.onFailed }),
  });
}

/** One stream's messages in this batch and the SQS records that brought them. */
interface StreamGroup {
  workspaceId: string;
  streamId: string;
  messages: StreamMessage[];
  records: string[];
}

/**
 * The handler over the delivery's parts. A body that is no stream message is logged (its id, never its body) and
 * dropped; a message not yet due is queued again, delayed, and done; the rest are delivered stream by stream. A
 * record is reported failed when its messages could not be queued again or its stream could not be read or opened:
 * SQS offers it again after its visibility timeout and, after its receives, moves it to the dead-letter queue.
 */
export function makeStreamWorker(deps: StreamDeliveryDeps) {
  const deliver = makeStreamDelivery(deps);
  const { log } = deps;

  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const now = deps.clock.now();
    const failed: string[] = [];
    const groups = new Map<string, StreamGroup>();
    const hops: Promise<void>[] = [];
    for (const record of event.Records) {
      const message = parseStreamMessage(record.body);
      if (!message) {
        log.error('audit stream message not understood', { messageId: record.messageId });
      } else if (message.notBefore !== undefined && message.notBefore > now) {
        hops.push(hop(message, record.messageId, now, failed));
      } else {
        const group = groupOf(groups, message);
        group.messages.push(message);
        group.records.push(record.messageId);
      }
    }
    await Promise.all([...hops, ...[...groups.values()].map((group) => deliverGroup(group, failed))]);
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };

  /** A retry due later than SQS could delay it: queued again for what is left of the wait (at most 15 minutes). */
  async function hop(message: StreamMessage, messageId: string, now: number, failed: string[]): Promise<void> {
    if (!(await enqueued(deps.queue, log, [message], (message.notBefore! - now) / 1000))) failed.push(messageId);
  }

  /** Delivers one stream's messages; its records fail when they could not be delivered nor queued again. */
  async function deliverGroup(group: StreamGroup, failed: string[]): Promise<void> {
    try {
      if (await deliver(group.workspaceId, group.streamId, group.messages)) return;
    } catch (error) {
      const fields = { workspaceId: group.workspaceId, streamId: group.streamId, errorName: (error as Error | null)?.name };
      log.error('audit stream delivery could not run', fields);
    }
    failed.push(...group.records);
  }
}

/** The group of a message's stream in this batch, made on its first message. */
function groupOf(groups: Map<string, StreamGroup>, message: StreamMessage): StreamGroup {
  const key = `${message.workspaceId}/${message.streamId}`;
  let group = groups.get(key);
  if (!group) {
    group = { workspaceId: message.workspaceId, streamId: message.streamId, messages: [], records: [] };
    groups.set(key, group);
  }
  return group;
}
