import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../../platform/clock.ts';
import { formatDeliveryMessage, formatRecoveryMessage, type DeliveryMessage, type RecoveryMessage } from './delivery-message.ts';
import { formatStatsRollupMessage, type StatsRollupMessage } from '../stats/stats-message.ts';
import type { OneTimeScheduler } from './one-time-scheduler.ts';
import { translateAwsError } from './transient-failures.ts';

/** SQS's own ceiling for DelaySeconds; longer waits go through the scheduler. */
export const MAX_SQS_DELAY_SECONDS = 900;

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
  /** Queues a step of a recovery of failed deliveries, for now (the worker runs it). */
  enqueueRecovery(message: RecoveryMessage): Promise<void>;
  /** Queues a statistics rollup for `at` (at most 15 minutes ahead: SQS DelaySeconds). */
  enqueueStatsRollup(message: StatsRollupMessage, at: number): Promise<void>;
}

/** Messages per SendMessageBatch request (SQS's limit). */
export const SEND_BATCH = 10;

/**
 * Puts delivery attempts on the delivery queue, now or later. A scheduled attempt is named
 * `<deliveryId>-<attemptToken>`, so enqueueing the same attempt twice schedules it once. Without a `scheduler` the queue only sends now or after a short SQS delay (the fan-out, the sweeper and manual
 * retries, whose bundles then carry no Scheduler client); asking it for a long wait is a programming error.
 */
export function makeDeliveryQueue(deps: { sqs: SQSClient; queueUrl: string; scheduler?: OneTimeScheduler; clock: Clock }): DeliveryQueue {
  /** Sends one message, delayed until `at` when given. */
  const sendOne = async (messageBody: string, at?: number) => {
    const delay = at === undefined ? {} : { DelaySeconds: delaySecondsUntil(at, deps.clock.now()) };
    try {
      await deps.sqs.send(new SendMessageCommand({ QueueUrl: deps.queueUrl, MessageBody: messageBody, ...delay }));
    } catch (error) {
      translateAwsError(error, 'SQS');
    }
  };
  return {
    async enqueue(message, { at, viaScheduler }) {
      const messageBody = formatDeliveryMessage(message);
      if (!viaScheduler) return sendOne(messageBody, at);
      if (!deps.scheduler) throw new Error('this delivery queue has no scheduler for long waits');
      await deps.scheduler.schedule({ name: `${message.deliveryId}-${message.attemptToken}`, at, messageBody });
    },

    enqueueRecovery: (message) => sendOne(formatRecoveryMessage(message)),

    enqueueStatsRollup: (message, at) => sendOne(formatStatsRollupMessage(message), at),

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
