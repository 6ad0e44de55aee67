import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * The sync queue (decisions.md v1.4, "Syncs"): one message is one push of one sync, of some keys or (`keys: null`) of
 * every key the sync matches. Queued by the API (a new sync, `run`, `resume`) and by the stream fan-out (a change of
 * the environment); the sync worker sends what is current when it runs, so a message never carries a value.
 */
export interface SyncMessage {
  workspaceId: string;
  syncId: string;
  /** The keys that changed, or null for a full sync. */
  keys: string[] | null;
  /** When the change was seen (epoch ms): the worker drops work its sync has already pushed past. */
  at: number;
  /** The attempt, for the retry schedule (1 for the first). */
  attempt: number;
  /**
   * A retry due later than SQS can delay a message (15 minutes): the worker queues it again, delayed, until then
   * (epoch ms), so the syncs need no scheduler of their own.
   */
  notBefore?: number;
}

/** Parses a queued body; undefined for one that is not a sync message (logged and dropped by the worker). */
export function parseSyncMessage(body: string): SyncMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const m = value as Partial<SyncMessage> | null;
  const keysOk = m?.keys === null || (Array.isArray(m?.keys) && m.keys.every((key) => typeof key === 'string'));
  if (!m || typeof m.workspaceId !== 'string' || typeof m.syncId !== 'string' || !keysOk) return undefined;
  if (typeof m.at !== 'number' || typeof m.attempt !== 'number' || m.attempt < 1) return undefined;
  if (m.notBefore !== undefined && typeof m.notBefore !== 'number') return undefined;
  const message: SyncMessage = { workspaceId: m.workspaceId, syncId: m.syncId, keys: m.keys ?? null, at: m.at, attempt: m.attempt };
  return m.notBefore === undefined ? message : { ...message, notBefore: m.notBefore };
}

/** Puts sync messages on the queue, now or after up to 15 minutes (SQS DelaySeconds). */
export interface SyncQueue {
  enqueue(message: SyncMessage, delaySeconds?: number): Promise<void>;
}

/** The sync queue over SQS. */
export function makeSyncQueue(deps: { sqs: SQSClient; queueUrl: string }): SyncQueue {
  return {
    async enqueue(message, delaySeconds = 0) {
      await deps.sqs.send(
        new SendMessageCommand({
          QueueUrl: deps.queueUrl,
          MessageBody: JSON.stringify(message),
          DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))),
        }),
      );
    },
  };
}
