import { makeSchedulerClient } from '../clients/scheduler.ts';
import { makeSqsClient } from '../clients/sqs.ts';
import type { Config } from '../config.ts';
import { makeCipher } from '../crypto/envelope.ts';
import { keyProviderFromConfig } from '../crypto/from-config.ts';
import type { Runtime } from '../runtime.ts';
import { makeDeliveryQueue, type DeliveryMessage, type DeliveryQueue } from './delivery-queue.ts';
import { makeEventBridgeScheduler } from './scheduler.ts';
import { sendWebhook } from './sender.ts';
import { checkWebhookUrl, parseAllowedCidrs } from './ssrf.ts';
import { ATTEMPT_TIMEOUT_MS } from './policy.ts';

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`Invalid configuration: ${name} is required for webhook delivery`);
  return value;
}

/** The delivery queue of this container: SQS for short waits, EventBridge Scheduler for long ones. */
export function deliveryQueueFromConfig(config: Config, clock: Runtime['clock']): DeliveryQueue {
  const w = config.webhooks;
  const queueArn = required(w.queueArn, 'DELIVERY_QUEUE_ARN');
  return makeDeliveryQueue({
    sqs: makeSqsClient({ endpoint: w.sqsEndpoint }),
    queueUrl: required(w.queueUrl, 'DELIVERY_QUEUE_URL'),
    scheduler: makeEventBridgeScheduler({
      client: makeSchedulerClient({ endpoint: w.schedulerEndpoint }),
      groupName: required(w.schedulerGroup, 'SCHEDULER_GROUP'),
      queueArn,
      roleArn: required(w.schedulerRoleArn, 'SCHEDULER_ROLE_ARN'),
    }),
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
