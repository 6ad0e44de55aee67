import type { AuditEntry } from '../../audit/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AuditStreamRecord } from '../stream-records.ts';
import { streamBatches } from './stream-batches.ts';
import { streamRequest, type OpenedStream, type StreamRequest } from './stream-formats.ts';
import { DISABLE_AFTER_MS, healthChange, safeReason, type DeliveryResult, type StreamHealthStore } from './stream-health.ts';
import { streamMessages, type StreamMessage, type StreamQueue } from './stream-queue.ts';

/**
 * One stream's share of a worker invocation (decisions.md v1.4, "Audit streams and tamper evidence"): its messages'
 * entries merged (each id once), cut into batches of at most 500 entries or 1 MB, each POSTed through the SSRF guard;
 * a batch that fails is queued again for its next attempt on the webhook schedule, and the stream's health records
 * the outcome (stream-health.ts), which after 3 days of failing disables it.
 */

/**
 * The webhooks' retry delays (shared/webhooks/deliveries/retry-policy.ts, which other features may not import):
 * 1 min, 5 min, 25 min, 2 h, 12 h after each failure, then every 12 h until the stream is disabled.
 */
export const STREAM_RETRY_DELAYS_MS = [60_000, 300_000, 1_500_000, 7_200_000, 43_200_000] as const;

export interface StreamDeliveryDeps {
  streams: Pick<StreamHealthStore, 'getStream' | 'record'>;
  queue: StreamQueue;
  /** The stream's credentials unsealed for this delivery (stream-open.ts). */
  openCredentials: (workspaceId: string, stream: AuditStreamRecord) => Promise<OpenedStream>;
  /** One POST through the SSRF guard (stream-sender.ts); never throws. */
  send: (request: StreamRequest) => Promise<DeliveryResult>;
  clock: Clock;
  log: Logger;
  /** WEBHOOK_TIME_SCALE: shrinks the retry delays and the 3-day window (local stack and tests only). */
  timeScale: number;
  /** Counts a stream the delivery disabled (an alarm's metric). */
  onDisabled?: () => void;
  /** Counts a batch a receiver did not take (an alarm's metric). */
  onFailed?: () => void;
}

/** An entry with the attempt of the message that brought it (entries of several attempts can meet in one batch). */
interface Pending {
  entry: AuditEntry;
  attempt: number;
}

/**
 * The delivery of one stream's messages. Answers false when a failed batch could not be queued again (the caller
 * reports its records failed, so SQS offers them again); throws when the stream could not be read or opened.
 */
export function makeStreamDelivery(deps: StreamDeliveryDeps) {
  const { clock, log } = deps;

  return async function deliver(workspaceId: string, streamId: string, messages: readonly StreamMessage[]): Promise<boolean> {
    const pending = merged(messages);
    const stream = await deps.streams.getStream(workspaceId, streamId);
    // Gone or disabled: its entries are not owed to anyone (enabling a stream delivers from then on).
    if (!stream || stream.status === 'disabled') {
      log.info('audit stream entries dropped', { workspaceId, streamId, entries: pending.length, why: stream ? 'disabled' : 'deleted' });
      return true;
    }
    const opened = await deps.openCredentials(workspaceId, stream);
    const attempts = new Map(pending.map(({ entry, attempt }) => [entry.id, attempt]));
    let failure: DeliveryResult | undefined;
    let requeued = true;
    for (const batch of streamBatches(
      stream.type,
      pending.map(({ entry }) => entry),
    )) {
      const result = await deps.send(streamRequest(opened, batch.entries, clock.now()));
      if (result.ok) continue;
      failure = result;
      deps.onFailed?.();
      const fields = { workspaceId, streamId, entries: batch.entries.length, statusCode: result.statusCode };
      log.warn('audit stream batch failed', { ...fields, reason: safeReason(result.reason) });
      const again = batch.entries.map((entry) => ({ entry, attempt: attempts.get(entry.id)! }));
      if (!(await retry(workspaceId, stream, again))) requeued = false;
    }
    await recordOutcome(workspaceId, stream, failure ?? { ok: true });
    return requeued;
  };

  /**
   * Queues a failed batch's entries again, each group of one attempt as the next attempt, due after the schedule's
   * wait but never past the end of the 3-day window (the attempt that disables the stream falls on time). False when
   * SQS refused or the send threw: nothing lost, the caller fails the records.
   */
  async function retry(workspaceId: string, stream: AuditStreamRecord, failed: readonly Pending[]): Promise<boolean> {
    const now = clock.now();
    const windowEnd = Date.parse(stream.failingSince ?? iso(now)) + DISABLE_AFTER_MS * deps.timeScale;
    let all = true;
    for (const attempt of new Set(failed.map((p) => p.attempt))) {
      const step = STREAM_RETRY_DELAYS_MS[Math.min(attempt, STREAM_RETRY_DELAYS_MS.length) - 1]!;
      const due = Math.min(now + Math.round(step * deps.timeScale), Math.max(windowEnd, now + 1000));
      const entries = failed.filter((p) => p.attempt === attempt).map((p) => p.entry);
      const messages = streamMessages(workspaceId, stream.id, entries, attempt + 1).map((m) => ({ ...m, notBefore: due }));
      if (!(await enqueued(deps.queue, log, messages, (due - now) / 1000))) all = false;
    }
    return all;
  }

  /**
   * Writes what the delivery changed on the stream's health. A write that fails is logged, not thrown: the entries
   * are delivered or queued again already, and failing the records would send them all once more.
   */
  async function recordOutcome(workspaceId: string, stream: AuditStreamRecord, result: DeliveryResult): Promise<void> {
    const change = healthChange(stream, result, clock.now(), deps.timeScale);
    if (!change) return;
    try {
      const written = await deps.streams.record(workspaceId, stream.id, change);
      if (written && change.kind === 'disabled') {
        log.warn('audit stream disabled after failing', { workspaceId, streamId: stream.id, failingSince: change.failingSince });
        deps.onDisabled?.();
      }
    } catch (error) {
      log.error('audit stream health not recorded', { workspaceId, streamId: stream.id, errorName: (error as Error | null)?.name });
    }
  }
}

/**
 * The messages' entries in order, each id once (a message can be delivered twice by SQS, and the fan-out may queue
 * an entry again after a partial failure), with the attempt of the first message that brought it.
 */
function merged(messages: readonly StreamMessage[]): Pending[] {
  const seen = new Set<string>();
  const pending: Pending[] = [];
  for (const message of messages)
    for (const entry of message.entries) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      pending.push({ entry, attempt: message.attempt });
    }
  return pending;
}

/** Puts `messages` on the queue after `delaySeconds` (at most 15 minutes: SQS's own cap); false when any was refused. */
export async function enqueued(
  queue: StreamQueue,
  log: Logger,
  messages: readonly StreamMessage[],
  delaySeconds: number,
): Promise<boolean> {
  try {
    const refused = await queue.enqueueAll(messages, Math.min(900, Math.max(0, delaySeconds)));
    if (refused.length > 0) log.error('audit stream messages refused by the queue', { refused: refused.length, of: messages.length });
    return refused.length === 0;
  } catch (error) {
    log.error('audit stream messages could not be queued', { messages: messages.length, errorName: (error as Error | null)?.name });
    return false;
  }
}
