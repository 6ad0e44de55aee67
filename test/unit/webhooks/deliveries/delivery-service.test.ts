import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import type { AuditEntry } from '../../../../shared/audit/audit-store.ts';
import type { StoredDelivery } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import type { StoredEndpoint } from '../../../../shared/webhooks/endpoints/endpoint-store.ts';
import { makeDeliveryService, type DeliveryServiceDeps } from '../../../../shared/webhooks/deliveries/delivery-service.ts';
import { caught, fakeClock, fakeQueue, principal, T0 } from '../../support/fakes.ts';
import { delivery, endpoint } from '../pipeline-support.ts';

const finished = (overrides: Partial<StoredDelivery> = {}) =>
  delivery({ status: 'failed', attempts: 6, attemptToken: null, nextRetryAt: null, ...overrides });

/** A delivery service over one endpoint and its deliveries; `retryNow` keeps the real condition (the status read only). */
function harness(deliveries: StoredDelivery[], endpoints: StoredEndpoint[] = [endpoint()]) {
  const stored = new Map(deliveries.map((d) => [d.id, structuredClone(d)]));
  const audits: AuditEntry[] = [];
  const endpointReads: string[] = [];
  const retryWrites: string[] = [];
  const retried: Parameters<DeliveryServiceDeps['store']['retryNow']>[1][] = [];
  const queue = fakeQueue();
  const store: DeliveryServiceDeps['store'] = {
    async getEndpoint(_ws, id) {
      endpointReads.push(id);
      return endpoints.find((e) => e.id === id);
    },
    listDeliveries: async () => ({ items: [], nextCursor: null, hasMore: false }),
    getDelivery: async (_ws, id) => structuredClone(stored.get(id)),
    async retryNow(_ws, finished, token, now, audit) {
      retryWrites.push(finished.id);
      retried.push(finished);
      const d = stored.get(finished.id);
      if (!d || d.status !== finished.status) return false;
      Object.assign(d, { status: 'pending', attemptToken: token, nextRetryAt: now, manual: true });
      audits.push(audit);
      return true;
    },
  };
  const service = makeDeliveryService({ store, clock: fakeClock(), enqueue: (m) => queue.enqueue(m) });
  return { service, store, stored, audits, endpointReads, retryWrites, retried, queue, caller: principal() };
}

describe('delivery service: manual retry', () => {
  it('a finished delivery gets one attempt now, queued under the token the delivery was given, and audited', async () => {
    // Prepare
    const h = harness([finished()]);
    // Act
    const answer = await h.service.retry(h.caller, 'whd_01');
    // Assess
    const token = h.stored.get('whd_01')!.attemptToken!;
    expect(h.queue.sent).toEqual([{ message: { workspaceId: 'ws_test', deliveryId: 'whd_01', attemptToken: token } }]);
    expect(h.stored.get('whd_01')).toMatchObject({ status: 'pending', manual: true, nextRetryAt: iso(T0) });
    expect(h.audits).toEqual([
      expect.objectContaining({
        action: 'webhook_delivery.retry',
        target: 'whd_01',
        metadata: expect.objectContaining({ endpointId: 'we_01' }),
      }),
    ]);
    expect(answer.status).toBe('pending');
  });

  it.each(['failed', 'success'] as const)(
    'a %s delivery is retried from the status it was read in, which names the count its hour gives up',
    async (status) => {
      // Prepare
      const h = harness([finished({ status, createdAt: iso(T0 - 3_600_000) })]);
      // Act
      await h.service.retry(h.caller, 'whd_01');
      // Assess: the store's write holds only from that status and takes the delivery out of its count
      expect(h.retried).toEqual([{ id: 'whd_01', endpointId: 'we_01', createdAt: iso(T0 - 3_600_000), status }]);
    },
  );

  it('a delivery that is still pending is ALREADY_QUEUED before any write, and nothing is queued', async () => {
    const h = harness([delivery()]);
    expect((await caught(() => h.service.retry(h.caller, 'whd_01'))).code).toBe('ALREADY_QUEUED');
    expect(h.retryWrites).toEqual([]);
    expect(h.queue.sent).toEqual([]);
  });

  it('a retry that loses to a concurrent one (read finished, written pending) is ALREADY_QUEUED and queues nothing', async () => {
    // Prepare: a concurrent retry turns the delivery pending between this one's read and its write.
    const h = harness([finished()]);
    const retryNow = h.store.retryNow;
    h.store.retryNow = async (...args) => {
      h.stored.get('whd_01')!.status = 'pending';
      return retryNow(...args);
    };
    // Act
    const error = await caught(() => h.service.retry(h.caller, 'whd_01'));
    // Assess
    expect(error.code).toBe('ALREADY_QUEUED');
    expect(h.queue.sent).toEqual([]);
  });

  it.each([
    ['paused', [endpoint({ enabled: false, disabledReason: 'paused' })]],
    ['deleted', []],
  ])('a delivery whose endpoint was %s is ENDPOINT_DISABLED and not retried', async (_, endpoints) => {
    const h = harness([finished()], endpoints);
    expect((await caught(() => h.service.retry(h.caller, 'whd_01'))).code).toBe('ENDPOINT_DISABLED');
    expect(h.audits).toEqual([]);
    expect(h.queue.sent).toEqual([]);
  });
});

describe('delivery service: reads', () => {
  it('a delivery is shown with its attempts but never its body, attempt token or manual flag', async () => {
    const h = harness([delivery()]);
    const shown = await h.service.getDelivery(h.caller, 'whd_01');
    expect(shown).toMatchObject({ id: 'whd_01', status: 'pending', attemptLog: [] });
    for (const field of ['body', 'attemptToken', 'manual']) expect(shown).not.toHaveProperty(field);
  });

  it('an endpointId filter naming an endpoint the workspace does not have is NOT_FOUND; no filter reads no endpoint', async () => {
    const h = harness([]);
    expect((await caught(() => h.service.listDeliveries(h.caller, { endpointId: 'we_other' }, { limit: 10 }))).code).toBe('NOT_FOUND');
    await h.service.listDeliveries(h.caller, {}, { limit: 10 });
    expect(h.endpointReads).toEqual(['we_other']);
  });
});
