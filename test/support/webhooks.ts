import { inject } from 'vitest';
import { startHttpsReceiver, type ReceiverBehaviour } from './https-receiver.ts';
import { call, localStore } from './api.ts';
import { newId } from '../../shared/platform/ids.ts';
import { putFailedDeliveries } from './failed-deliveries.ts';
import type { StoredDelivery } from '../../shared/webhooks/deliveries/delivery-store.ts';

/** An HTTPS receiver the local stack trusts (its certificate is in the stack's NODE_EXTRA_CA_CERTS). */
export function startReceiver(behaviour: ReceiverBehaviour = {}) {
  return startHttpsReceiver(behaviour, inject('tls'));
}

/** Registers an endpoint and answers its record with the one-time secret. */
export async function registerEndpoint(
  token: string,
  url: string,
  events: string[] = ['service.secret.create', 'service.secret.rotate', 'service.secret.reveal', 'service.secret.delete'],
) {
  const answer = await call('POST', '/api/v1/webhooks', { token, body: { url, events } });
  if (answer.status !== 201) throw new Error(`registration failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: string; secret: string; secretHint: string; url: string; events: string[] };
}

/** Polls `probe` until it answers something truthy, or fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined | false | null>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One endpoint's deliveries through the API, newest first. */
export async function deliveriesOf(token: string, endpointId: string) {
  return (await call('GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=200`, { token })).body.data as {
    id: string;
    status: string;
    attempts: number;
    eventId: string;
    eventType: string;
    lastError: string | null;
    statusCode: number | null;
    nextRetryAt: string | null;
    attemptLog: { attempt: number; at: string; statusCode: number | null; durationMs: number; error: string | null }[];
  }[];
}

/** A fresh pending delivery record of `endpointId`, as the fan-out makes one, created `index` seconds after a fixed instant. */
export function storedDelivery(endpointId: string, index: number, eventType = 'service.secret.update'): StoredDelivery {
  const at = new Date(Date.UTC(2026, 10, 23, 12, 0, index)).toISOString();
  return {
    id: newId('delivery', Date.parse(at)),
    endpointId,
    eventId: newId('event', Date.parse(at)),
    eventType,
    status: 'pending',
    attempts: 0,
    statusCode: null,
    lastError: null,
    nextRetryAt: null,
    createdAt: at,
    updatedAt: at,
    attemptLog: [],
    body: '{}',
    attemptToken: `first-${index}`,
    manual: false,
  };
}

/**
 * `count` deliveries of `endpointId` that failed all six attempts, created `ageMs` ago one millisecond apart, put
 * straight into the local stack's table as the pipeline leaves them (six real attempts each would take minutes).
 */
export function failedDeliveries(workspaceId: string, endpointId: string, count: number, ageMs = 3_600_000): Promise<StoredDelivery[]> {
  const { doc, tableName } = localStore();
  return putFailedDeliveries(doc, tableName, workspaceId, endpointId, count, Date.now() - ageMs);
}
