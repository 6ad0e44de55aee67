import { makeSqsClient } from '../clients/sqs.ts';
import type { Config } from '../config.ts';
import { makeCipher } from '../crypto/envelope.ts';
import { keyProviderFromConfig } from '../crypto/from-config.ts';
import type { Runtime } from '../runtime.ts';
import { makeDeliveryQueue, type DeliveryMessage, type DeliveryQueue } from './delivery-queue.ts';
import { sendWebhook } from './sender.ts';
import { checkWebhookUrl, parseAllowedCidrs } from './ssrf.ts';
import { ATTEMPT_TIMEOUT_MS } from './policy.ts';

export function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`Invalid configuration: ${name} is required for webhook delivery`);
  return value;
}

/**
 * A queue that only sends now or after a short SQS delay: what the fan-out, the sweeper and manual retries use, so
 * their bundles carry no Scheduler client (only the worker schedules long waits: scheduled-queue.ts).
 */
export function immediateQueueFromConfig(config: Config, clock: Runtime['clock']): DeliveryQueue {
  return makeDeliveryQueue({
    sqs: makeSqsClient({ endpoint: config.webhooks.sqsEndpoint }),
    queueUrl: required(config.webhooks.queueUrl, 'DELIVERY_QUEUE_URL'),
    scheduler: {
      schedule: async () => {
        throw new Error('this function schedules no long waits');
      },
    },
    clock,
  });
}

/** Queues an attempt for right now (a new delivery, a manual retry). */
export function enqueueNow(queue: DeliveryQueue, clock: Runtime['clock']) {
  return (message: DeliveryMessage) => queue.enqueue(message, { at: clock.now(), viaScheduler: false });
}

/** What the webhook functions share: the cipher for signing secrets, the SSRF guard and the sender. */
export function webhookToolsFromConfig(config: Config) {
  const allow = parseAllowedCidrs(config.webhooks.allowPrivateCidrs);
  return {
    cipher: makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: 200, ttlMs: 5 * 60_000 } }),
    checkUrl: async (url: string) => {
      const verdict = await checkWebhookUrl(url, { allow });
      return verdict.ok ? ({ ok: true } as const) : verdict;
    },
    send: (request: { url: string; body: string; headers: Record<string, string> }) =>
      sendWebhook({ ...request, allow, timeoutMs: ATTEMPT_TIMEOUT_MS }),
  };
}
