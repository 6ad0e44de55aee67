import type { Logger } from '../../platform/logger.ts';
import { systemAuditEntry } from '../../audit/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import { signingSecretContext } from '../../platform/crypto/context.ts';
import type { Cipher } from '../../platform/crypto/envelope.ts';
import { claimOf, mayStartAttempt, type AttemptEntry, type StoredDelivery } from './delivery-store.ts';
import type { StoredEndpoint } from '../endpoints/endpoint-store.ts';
import type { EndpointWorkerStore } from '../endpoints/endpoint-pipeline-store.ts';
import type { DeliveryWorkerStore } from './delivery-store.ts';
import { newAttemptToken, type DeliveryMessage } from './delivery-message.ts';
import { failureReason, type DeliveryMetrics } from './metrics.ts';
import { nextAttempt, shouldAutoDisable } from './retry-policy.ts';
import type { AttemptResult } from './sender.ts';
import { previousSecretExpiry, signatureHeader } from '../endpoints/signature.ts';
import { redactUrl } from '../endpoints/redact-url.ts';
import { PING_EVENT_TYPE } from './event-types.ts';

export interface WorkerDeps {
  store: Pick<
    DeliveryWorkerStore,
    'getDelivery' | 'claimAttempt' | 'recordAttempt' | 'failPending' | 'pendingDeliveryIds' | 'recordDeliveryStats'
  > &
    Pick<EndpointWorkerStore, 'getEndpoint' | 'recordEndpointFailure' | 'recordEndpointSuccess' | 'autoDisableEndpoint'>;
  cipher: Cipher;
  clock: Clock;
  /** One POST through the SSRF-guarded sender. */
  send: (request: { url: string; body: string; headers: Record<string, string> }) => Promise<AttemptResult>;
  enqueue: (message: DeliveryMessage, options: { at: number; viaScheduler: boolean }) => Promise<void>;
  timeScale: number;
  metrics: DeliveryMetrics;
  log: Logger;
}

export type WorkOutcome = 'success' | 'retry' | 'failed' | 'dropped';

/**
 * The delivery worker: one attempt per queue message. The delivery item decides: a message whose token the
 * delivery no longer carries (already sent, failed, re-queued by a manual retry or the sweeper) is dropped without a
 * send; otherwise the worker claims the attempt with a conditional swap of the token, sends, records the attempt
 * and either finishes the delivery or schedules the next attempt with a fresh token. A message SQS shows again
 * (`redelivered`: its worker died or failed) may take over its own claim once the claim's lease ran out.
 */
export function makeWorker(deps: WorkerDeps) {
  const { store, clock } = deps;

  /** The endpoint's signing secrets, newest first: its own, and the one a rotation replaced while that still signs. */
  async function signingSecrets(ws: string, endpoint: StoredEndpoint): Promise<string[]> {
    const context = signingSecretContext(ws, endpoint.id);
    const sealed =
      endpoint.previousSealedSecret && previousSecretExpiry(endpoint, clock.now())
        ? [endpoint.sealedSecret, endpoint.previousSealedSecret]
        : [endpoint.sealedSecret];
    return Promise.all(sealed.map((value) => deps.cipher.decrypt(value, context)));
  }

  async function attempt(ws: string, delivery: StoredDelivery, endpoint: StoredEndpoint, claim: string): Promise<WorkOutcome> {
    const secrets = await signingSecrets(ws, endpoint);
    const number = delivery.attempts + 1;
    const startedAt = clock.now();
    const result = await deps.send({
      url: endpoint.url,
      body: delivery.body,
      headers: {
        'Content-Type': 'application/json',
        'Service-Signature': signatureHeader(secrets, delivery.body, Math.floor(startedAt / 1000)),
        'Service-Event-Id': delivery.eventId,
        'Service-Event-Type': delivery.eventType,
        'Service-Delivery-Id': delivery.id,
        'Service-Delivery-Attempt': String(number),
      },
    });
    const entry: AttemptEntry = {
      attempt: number,
      at: iso(startedAt),
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
    };
    deps.metrics.attempt({ ok: result.ok, latencyMs: result.durationMs, ...(result.ok ? {} : { reason: failureReason(result) }) });
    if (delivery.eventType === PING_EVENT_TYPE) deps.metrics.testEventSent();
    if (result.ok) {
      const recorded = await store.recordAttempt(ws, delivery.id, claim, entry, { status: 'success' });
      if (recorded) await countAttempt(ws, recorded, entry, 'success');
      if (endpoint.consecutiveFailures > 0) await store.recordEndpointSuccess(ws, endpoint.id);
      return 'success';
    }
    const outcome = await scheduleNext(ws, delivery, claim, entry);
    await countFailure(ws, endpoint);
    return outcome;
  }

  /** The next attempt after a failure, or `failed` after the last one (a manual retry is a single attempt). */
  async function scheduleNext(ws: string, delivery: StoredDelivery, claim: string, entry: AttemptEntry): Promise<WorkOutcome> {
    const next = delivery.manual ? undefined : nextAttempt(entry.attempt, clock.now(), deps.timeScale);
    if (!next) {
      const recorded = await store.recordAttempt(ws, delivery.id, claim, entry, { status: 'failed' });
      if (recorded) await countAttempt(ws, recorded, entry, 'failed');
      if (!delivery.manual) deps.metrics.exhausted();
      return 'failed';
    }
    const attemptToken = newAttemptToken();
    const recorded = await store.recordAttempt(ws, delivery.id, claim, entry, {
      status: 'pending',
      nextRetryAt: iso(next.at),
      attemptToken,
    });
    // A lost claim (the endpoint was paused meanwhile) schedules nothing; a lost send is found by the sweeper.
    if (!recorded) return 'dropped';
    await countAttempt(ws, recorded, entry, 'retry');
    await deps.enqueue({ workspaceId: ws, deliveryId: delivery.id, attemptToken }, next);
    deps.metrics.retryScheduled(next.viaScheduler ? 'scheduler' : 'sqs');
    return 'retry';
  }

  /**
   * Counts a recorded attempt in its delivery's bucket of the endpoint's statistics: its duration and time, and the
   * delivery as succeeded or failed when the attempt finished it (a retry scheduled is not final). The store writes
   * it only when the delivery's changes are counted late (`recorded.lateCounted`); else the bucket's rollup counts the
   * attempt from the delivery itself. A write of its own after the attempt's: a worker that stops between the two
   * loses this count. A failure here is logged and not thrown, since the attempt is recorded and a redelivered
   * message would be dropped anyway.
   */
  async function countAttempt(
    ws: string,
    recorded: StoredDelivery,
    entry: AttemptEntry,
    outcome: 'success' | 'retry' | 'failed',
  ): Promise<void> {
    const finished = outcome === 'success' ? { succeeded: 1 } : outcome === 'failed' ? { failed: 1 } : {};
    const at = outcome === 'success' ? { successAt: entry.at } : { failureAt: entry.at };
    try {
      await store.recordDeliveryStats(
        ws,
        recorded.endpointId,
        recorded.createdAt,
        { ...finished, ...at, durationMs: entry.durationMs },
        { late: recorded.lateCounted === true, deliveryId: recorded.id },
      );
    } catch (error) {
      deps.log.warn('delivery statistics not recorded', { deliveryId: recorded.id, errorName: (error as Error).name });
    }
  }

  /** Grows the endpoint's failure streak and switches it off once the streak is long and old enough. */
  async function countFailure(ws: string, endpoint: StoredEndpoint): Promise<void> {
    const now = clock.now();
    const updated = await store.recordEndpointFailure(ws, endpoint.id, iso(now));
    if (!updated?.enabled || !shouldAutoDisable(updated.consecutiveFailures, updated.failingSince, now, deps.timeScale)) return;
    const disabledAt = iso(now);
    const disabledReason = `${updated.consecutiveFailures} failed attempts in a row since ${updated.failingSince}`;
    const audit = systemAuditEntry(
      endpoint.accountId,
      'webhook_endpoint.disabled',
      endpoint.id,
      {
        url: redactUrl(updated.url),
        disabledAt,
        disabledReason,
        consecutiveFailures: updated.consecutiveFailures,
        failingSince: updated.failingSince,
      },
      now,
    );
    if (!(await store.autoDisableEndpoint(ws, endpoint.id, disabledAt, disabledReason, audit))) return;
    deps.metrics.autoDisabled();
    deps.log.warn('webhook endpoint switched off', { endpointId: endpoint.id, consecutiveFailures: updated.consecutiveFailures });
    for (const id of await store.pendingDeliveryIds(endpoint.id))
      await store.failPending(ws, id, 'endpoint switched off after repeated failures', disabledAt);
  }

  /**
   * The delivery, when the message may start its attempt. Read eventually consistently first (half the read units):
   * the claim that follows is conditional, so a read a moment old never sends twice; only a read that would drop the
   * message (a delivery just made or just given this token may not show yet) is made again consistently.
   */
  async function startable(ws: string, message: DeliveryMessage): Promise<StoredDelivery | undefined> {
    const seen = await store.getDelivery(ws, message.deliveryId, { consistent: false });
    if (seen && mayStartAttempt(seen, message.attemptToken, clock.now())) return seen;
    const current = await store.getDelivery(ws, message.deliveryId);
    return current && mayStartAttempt(current, message.attemptToken, clock.now()) ? current : undefined;
  }

  return async (message: DeliveryMessage, receipt: { redelivered: boolean } = { redelivered: false }): Promise<WorkOutcome> => {
    const ws = message.workspaceId;
    const delivery = await startable(ws, message);
    if (!delivery) {
      deps.metrics.dropped();
      return 'dropped';
    }
    const endpoint = await store.getEndpoint(ws, delivery.endpointId);
    if (!endpoint?.enabled) {
      await store.failPending(ws, delivery.id, endpoint ? 'endpoint disabled' : 'endpoint deleted', iso(clock.now()), {
        messageToken: message.attemptToken,
      });
      deps.metrics.dropped();
      return 'dropped';
    }
    const claim = claimOf(message.attemptToken, newAttemptToken());
    const claimed = await store.claimAttempt(ws, delivery.id, message.attemptToken, claim, iso(clock.now()), {
      redelivered: receipt.redelivered,
    });
    if (!claimed) {
      deps.metrics.dropped();
      return 'dropped';
    }
    return attempt(ws, claimed, endpoint, claim);
  };
}
