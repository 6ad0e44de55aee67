import { createHash, randomBytes } from 'node:crypto';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock.ts';
import { isId } from '../ids.ts';
import { translateAwsError, type OneTimeScheduler } from './scheduler.ts';

/** What the delivery queue carries: which delivery to attempt, never its payload or the endpoint's secret. */
export interface DeliveryMessage {
  workspaceId: string;
  deliveryId: string;
  /** Names one scheduled attempt; the worker ignores a message whose token is no longer the delivery's current one. */
  attemptToken: string;
}

/**
 * The longest attempt token. `whd_` + ULID (30) + `-` + token must fit EventBridge Scheduler's 64-character names,
 * and the token must use only characters those names allow.
 */
export const MAX_ATTEMPT_TOKEN_LENGTH = 33;
const ATTEMPT_TOKEN = new RegExp(`^[0-9A-Za-z_-]{1,${MAX_ATTEMPT_TOKEN_LENGTH}}$`);
const KEYS = ['workspaceId', 'deliveryId', 'attemptToken'] as const;

/**
 * A fresh attempt token (12 base64url characters, well within the rule above): a queued message may start an
 * attempt only while the delivery still carries its token.
 */
export function newAttemptToken(): string {
  return randomBytes(9).toString('base64url');
}

/**
 * The token of a delivery's first attempt, derived from its id: a fan-out that sees its stream record again can queue
 * the same first message again (the worker lets only one of them through), so a message lost between the delivery's
 * creation and its send is sent by the stream retry, without a second token or a second send.
 */
export function firstAttemptToken(deliveryId: string): string {
  return createHash('sha256').update(`first-attempt\n${deliveryId}`).digest().subarray(0, 9).toString('base64url');
}

/** SQS's own ceiling for DelaySeconds; longer waits go through the scheduler. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** True for a well-formed message: exactly the three keys, each a well-formed value. */
function isDeliveryMessage(value: unknown): value is DeliveryMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== KEYS.length || !KEYS.every((key) => typeof record[key] === 'string')) return false;
  const { workspaceId, deliveryId, attemptToken } = record as unknown as DeliveryMessage;
  return isId('workspace', workspaceId) && isId('delivery', deliveryId) && ATTEMPT_TOKEN.test(attemptToken);
}

/**
 * Reads a queue message body strictly: JSON with exactly `workspaceId` (`ws_`), `deliveryId` (`whd_`) and
 * `attemptToken`, nothing else. Anything else answers undefined, so the worker can drop it rather than retry it.
 */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  if (typeof body !== 'string' || body.length > 1024) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isDeliveryMessage(value)) return undefined;
  return { workspaceId: value.workspaceId, deliveryId: value.deliveryId, attemptToken: value.attemptToken };
}

/** The message body, keys always in the same order. */
export function formatDeliveryMessage(message: DeliveryMessage): string {
  if (!isDeliveryMessage(message)) throw new Error('Invalid delivery message: expected ws_ and whd_ ids and a short attempt token');
  return JSON.stringify({ workspaceId: message.workspaceId, deliveryId: message.deliveryId, attemptToken: message.attemptToken });
}

/** DelaySeconds for an attempt due at `at`: whole seconds, rounded up so it is never early, within SQS's 0–900. */
export function delaySecondsUntil(at: number, now: number): number {
  const seconds = Math.ceil((at - now) / 1000);
  return Number.isFinite(seconds) ? Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, seconds)) : 0;
}

/** When an attempt is due and which channel carries it there. */
export interface EnqueueOptions {
  /** When the attempt is due (epoch ms). */
  at: number;
  /** The caller's choice of channel: SQS DelaySeconds for steps up to 15 minutes, the scheduler beyond. */
  viaScheduler: boolean;
}

/** Puts delivery attempts on the queue, now or later. */
export interface DeliveryQueue {
  enqueue(message: DeliveryMessage, options: EnqueueOptions): Promise<void>;
  /**
   * Queues attempts for right now, ten to a SendMessageBatch request; answers the indexes of the messages SQS did not
   * take (a request that failed as a whole takes none of its ten).
   */
  enqueueAllNow(messages: readonly DeliveryMessage[]): Promise<number[]>;
}

/** Messages per SendMessageBatch request (SQS's limit). */
export const SEND_BATCH = 10;

/**
 * Puts delivery attempts on the delivery queue, now or later. A scheduled attempt is named
 * `<deliveryId>-<attemptToken>`, so enqueueing the same attempt twice schedules it once. Without a `scheduler` the queue only sends now or after a short SQS delay (the fan-out, the sweeper and manual
 * retries, whose bundles then carry no Scheduler client); asking it for a long wait is a programming error.
 */
export function makeDeliveryQueue(deps: { sqs: SQSClient; queueUrl: string; scheduler?: OneTimeScheduler; clock: Clock }): DeliveryQueue {
  return {
    async enqueue(message, { at, viaScheduler }) {
      const messageBody = formatDeliveryMessage(message);
      if (viaScheduler) {
        if (!deps.scheduler) throw new Error('this delivery queue has no scheduler for long waits');
        await deps.scheduler.schedule({ name: `${message.deliveryId}-${message.attemptToken}`, at, messageBody });
        return;
      }
      const command = new SendMessageCommand({
        QueueUrl: deps.queueUrl,
        MessageBody: messageBody,
        DelaySeconds: delaySecondsUntil(at, deps.clock.now()),
      });
      try {
        await deps.sqs.send(command);
      } catch (error) {
        translateAwsError(error, 'SQS');
      }
    },

    async enqueueAllNow(messages) {
      const refused: number[] = [];
      for (let start = 0; start < messages.length; start += SEND_BATCH) {
        const chunk = messages.slice(start, start + SEND_BATCH);
        const entries = chunk.map((message, i) => ({ Id: String(start + i), MessageBody: formatDeliveryMessage(message) }));
        try {
          const out = await deps.sqs.send(new SendMessageBatchCommand({ QueueUrl: deps.queueUrl, Entries: entries }));
          refused.push(...(out.Failed ?? []).map((entry) => Number(entry.Id)));
        } catch {
          refused.push(...entries.map((entry) => Number(entry.Id)));
        }
      }
      return refused.sort((a, b) => a - b);
    },
  };
}
