import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../../shared/audit/audit-store.ts';
import { iso } from '../../../../shared/platform/clock.ts';
import type { DeliveryMessage, RecoveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import type { StoredDelivery } from '../../../../shared/webhooks/deliveries/delivery-records.ts';
import type { Recovery } from '../../../../shared/webhooks/recovery/recovery-store.ts';
import {
  makeWebhookOperations,
  RECOVERY_MAX_AGE_MS,
  type WebhookOperationsDeps,
} from '../../../../shared/webhooks/recovery/webhook-operations-service.ts';
import { caught, fakeClock, fakeLogger, HOUR, principal, T0 } from '../../support/fakes.ts';
import { endpoint } from '../pipeline-support.ts';

/** The operations over one endpoint (`we_01`, enabled unless told) whose failed list holds `failed` deliveries. */
function harness(options: { enabled?: boolean; failed?: number; enqueueFails?: boolean } = {}) {
  const written: { delivery?: StoredDelivery; recovery?: Recovery; audit: AuditEntry }[] = [];
  const queued: DeliveryMessage[] = [];
  const steps: RecoveryMessage[] = [];
  const log = fakeLogger();
  const store: WebhookOperationsDeps['store'] = {
    getEndpoint: async (_ws, id) => (id === 'we_01' ? endpoint({ enabled: options.enabled ?? true }) : undefined),
    countFailedDeliveries: async () => options.failed ?? 0,
    startRecovery: async (_ws, recovery, audit) => void written.push({ recovery, audit }),
    createTestDelivery: async (_ws, delivery, audit) => void written.push({ delivery, audit }),
  };
  const refuse = async () => {
    if (options.enqueueFails) throw Object.assign(new Error('SQS down'), { name: 'ServiceUnavailableError' });
  };
  const operations = makeWebhookOperations({
    store,
    clock: fakeClock(T0),
    enqueue: async (message) => (await refuse(), void queued.push(message)),
    enqueueRecovery: async (message) => (await refuse(), void steps.push(message)),
    log,
  });
  return { operations, written, queued, steps, log };
}

describe('test events', () => {
  it('makes a pending service.ping delivery to the endpoint, with its audit entry naming it, and queues it now', async () => {
    // Prepare
    const h = harness();
    // Act
    const answer = await h.operations.test(principal(), 'we_01');
    // Assess
    const [{ delivery, audit }] = h.written as [{ delivery: StoredDelivery; audit: AuditEntry }];
    expect(delivery).toMatchObject({ endpointId: 'we_01', eventType: 'service.ping', status: 'pending', nextRetryAt: iso(T0) });
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'service.ping', data: { endpointId: 'we_01' } });
    expect(audit).toMatchObject({ action: 'webhook_endpoint.test', target: 'we_01', metadata: { deliveryId: delivery.id } });
    expect(h.queued).toEqual([{ workspaceId: 'ws_test', deliveryId: delivery.id, attemptToken: delivery.attemptToken }]);
    expect(answer).toEqual(expect.objectContaining({ id: delivery.id, status: 'pending' }));
    expect(answer).not.toHaveProperty('attemptToken');
    expect(answer).not.toHaveProperty('body');
  });

  it('answers all the same when the message cannot be queued: the sweeper sends the delivery, due now', async () => {
    const h = harness({ enqueueFails: true });
    expect(await h.operations.test(principal(), 'we_01')).toMatchObject({ status: 'pending' });
    expect(h.log.lines.map((line) => line.message)).toEqual(['test event not queued; the sweeper will']);
  });

  it("is NOT_FOUND for another workspace's endpoint and ENDPOINT_DISABLED for one that is off", async () => {
    expect((await caught(() => harness().operations.test(principal(), 'we_other'))).code).toBe('NOT_FOUND');
    expect((await caught(() => harness({ enabled: false }).operations.test(principal(), 'we_01'))).code).toBe('ENDPOINT_DISABLED');
  });
});

describe('recoveries of failed deliveries', () => {
  it('answers how many it will queue, records the running recovery with its audit entry and queues its first step', async () => {
    // Prepare
    const h = harness({ failed: 7 });
    // Act
    const answer = await h.operations.recover(principal(), 'we_01', { since: T0 - 2 * HOUR, until: T0 - HOUR });
    // Assess
    expect(answer).toEqual({ queued: 7 });
    const [{ recovery, audit }] = h.written as [{ recovery: Recovery; audit: AuditEntry }];
    expect(recovery).toMatchObject({ id: audit.id, endpointId: 'we_01', expected: 7, queued: 0, step: 0, status: 'running' });
    expect(audit).toMatchObject({
      action: 'webhook_endpoint.recover',
      metadata: { since: iso(T0 - 2 * HOUR), until: iso(T0 - HOUR), queued: 7 },
    });
    expect(h.steps).toEqual([{ workspaceId: 'ws_test', recoveryId: recovery.id, step: 0 }]);
  });

  it('records a recovery of nothing as done and queues no step; until defaults to now', async () => {
    const h = harness({ failed: 0 });
    expect(await h.operations.recover(principal(), 'we_01', { since: T0 - HOUR })).toEqual({ queued: 0 });
    expect(h.written[0]!.recovery).toMatchObject({ status: 'done', until: iso(T0) });
    expect(h.steps).toEqual([]);
  });

  it('answers all the same when its first step cannot be queued: the sweeper restarts the recovery', async () => {
    const h = harness({ failed: 2, enqueueFails: true });
    expect(await h.operations.recover(principal(), 'we_01', { since: T0 - HOUR })).toEqual({ queued: 2 });
    expect(h.log.lines.map((line) => line.message)).toEqual(['recovery not queued; the sweeper will']);
  });

  it.each([
    ['since in the future', { since: T0 + 1 }, 'since: must not be in the future'],
    ['until in the future', { since: T0 - HOUR, until: T0 + 1 }, 'until: must not be in the future'],
    ['since too long ago', { since: T0 - RECOVERY_MAX_AGE_MS - 1 }, 'since: must be at most 14 days ago'],
    ['until before since', { since: T0 - HOUR, until: T0 - 2 * HOUR }, 'until: must not be before since'],
  ])('refuses a span with %s', async (_name, span, message) => {
    const h = harness({ failed: 1 });
    const error = await caught(() => h.operations.recover(principal(), 'we_01', span));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'VALIDATION_ERROR', message });
    expect(h.written).toEqual([]);
  });

  it('takes a span of exactly 14 days', async () => {
    expect(await harness({ failed: 1 }).operations.recover(principal(), 'we_01', { since: T0 - RECOVERY_MAX_AGE_MS })).toEqual({
      queued: 1,
    });
  });

  it('is ENDPOINT_DISABLED for an endpoint that is off, and writes nothing', async () => {
    const h = harness({ enabled: false, failed: 3 });
    expect((await caught(() => h.operations.recover(principal(), 'we_01', { since: T0 - HOUR }))).code).toBe('ENDPOINT_DISABLED');
    expect(h.written).toEqual([]);
  });
});
