import { describe, expect, it } from 'vitest';
import { signingSecretContext } from '../../../shared/crypto/context.ts';
import type { AttemptEntry, StoredDelivery } from '../../../shared/store/deliveries.ts';
import type { StoredEndpoint } from '../../../shared/store/webhooks.ts';
import { AUTO_DISABLE_FAILURES, RETRY_DELAYS_MS } from '../../../shared/webhooks/policy.ts';
import { makeWorker, type WorkerDeps } from '../../../shared/webhooks/worker.ts';
import { fakeCipher, fakeClock, silentLog, WS } from '../support/fakes.ts';

const HOUR = 3_600_000;

async function setup(options: { attempts?: number; manual?: boolean; failures?: number; failingFor?: number; receiver?: 'ok' | 'fail' } = {}) {
  const clock = fakeClock();
  const { cipher } = fakeCipher();
  const sealedSecret = await cipher.encrypt('whsec_test', signingSecretContext(WS, 'we_1'));
  let endpoint: StoredEndpoint = {
    id: 'we_1', url: 'https://hooks.example.com/', events: ['service.secret.rotate'], description: null, enabled: true, secretHint: 'whsec_…test',
    createdAt: '', updatedAt: '', disabledAt: null, disabledReason: null, consecutiveFailures: options.failures ?? 0,
    failingSince: options.failures ? new Date(clock.now() - (options.failingFor ?? 0)).toISOString() : null, accountId: 'acc_1', sealedSecret,
  };
  let delivery: StoredDelivery = {
    id: 'whd_1', endpointId: 'we_1', eventId: 'evt_1', eventType: 'service.secret.rotate', status: 'pending', attempts: options.attempts ?? 0,
    statusCode: null, lastError: null, nextRetryAt: null, createdAt: '', updatedAt: '', attemptLog: [], body: '{"id":"evt_1"}', attemptToken: 'tok-1',
    manual: options.manual ?? false,
  };
  const recorded: { status: string; nextRetryAt?: string }[] = [];
  const enqueued: { at: number; viaScheduler: boolean }[] = [];
  const sent: Record<string, string>[] = [];
  const disabled: string[] = [];
  const failedPending: string[] = [];
  const store: WorkerDeps['store'] = {
    getDelivery: async () => delivery,
    getEndpoint: async () => endpoint,
    async claimAttempt(_ws, _id, token, claim) {
      // The conditional swap: only the holder of the current token claims.
      if (delivery.attemptToken !== token || delivery.status !== 'pending') return undefined;
      delivery = { ...delivery, attemptToken: claim };
      return delivery;
    },
    async recordAttempt(_ws, _id, claim, entry: AttemptEntry, outcome) {
      if (delivery.attemptToken !== claim) return undefined;
      recorded.push({ status: outcome.status, ...('nextRetryAt' in outcome ? { nextRetryAt: outcome.nextRetryAt } : {}) });
      delivery = { ...delivery, status: outcome.status, attempts: entry.attempt, attemptToken: 'attemptToken' in outcome ? outcome.attemptToken : null };
      return delivery;
    },
    failPending: async (_ws, id) => (failedPending.push(id), delivery),
    async recordEndpointFailure(_ws, _id, now) {
      endpoint = { ...endpoint, consecutiveFailures: endpoint.consecutiveFailures + 1, failingSince: endpoint.failingSince ?? now };
      return endpoint;
    },
    recordEndpointSuccess: async () => void (endpoint = { ...endpoint, consecutiveFailures: 0, failingSince: null }),
    async autoDisableEndpoint(_ws, id) {
      disabled.push(id);
      endpoint = { ...endpoint, enabled: false };
      return true;
    },
    pendingDeliveryIds: async () => ['whd_other'],
  };
  const metrics = { attempt: () => undefined, retryScheduled: () => undefined, exhausted: () => undefined, autoDisabled: () => undefined, dropped: () => undefined, flush: () => undefined };
  const work = makeWorker({
    store,
    cipher,
    clock,
    send: async (request) => {
      sent.push(request.headers);
      return options.receiver === 'ok' ? { ok: true, statusCode: 200, durationMs: 5, error: null } : { ok: false, statusCode: 500, durationMs: 5, error: 'HTTP 500' };
    },
    enqueue: async (_message, at) => void enqueued.push(at),
    timeScale: 1,
    metrics,
    log: silentLog,
  });
  return { work, clock, recorded, enqueued, sent, disabled, failedPending, endpoint: () => endpoint };
}

describe('delivery worker', () => {
  it('drops a message whose attempt token the delivery no longer carries, sending nothing', async () => {
    const { work, sent, recorded } = await setup({ receiver: 'ok' });
    expect(await work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-stale' })).toBe('dropped');
    expect([sent, recorded]).toEqual([[], []]);
  });

  it('sends a message twice received only once: the second loses the claim', async () => {
    const { work, sent } = await setup({ receiver: 'ok' });
    const message = { workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' };
    expect(await Promise.all([work(message), work(message)])).toEqual(expect.arrayContaining(['success', 'dropped']));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ 'Service-Delivery-Attempt': '1', 'Service-Event-Id': 'evt_1' });
  });

  it('schedules the attempt after a failure by the policy: 1 minute through SQS after the first, 2 hours through Scheduler after the fourth', async () => {
    const first = await setup();
    expect(await first.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' })).toBe('retry');
    expect(first.enqueued).toEqual([{ at: first.clock.now() + RETRY_DELAYS_MS[0], viaScheduler: false }]);
    const fourth = await setup({ attempts: 3 });
    await fourth.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' });
    expect(fourth.enqueued).toEqual([{ at: fourth.clock.now() + 2 * HOUR, viaScheduler: true }]);
  });

  it('fails the delivery after the sixth attempt, and a manual retry after its single attempt', async () => {
    const last = await setup({ attempts: 5 });
    expect(await last.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' })).toBe('failed');
    expect([last.recorded, last.enqueued]).toEqual([[{ status: 'failed' }], []]);
    const manual = await setup({ attempts: 1, manual: true });
    expect(await manual.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' })).toBe('failed');
  });

  it(`switches the endpoint off at the ${AUTO_DISABLE_FAILURES}th failure in a row once it has failed for 24 hours, not before`, async () => {
    // Prepare: 19 failures so far, for 23 hours / for 24 hours
    const young = await setup({ failures: AUTO_DISABLE_FAILURES - 1, failingFor: 23 * HOUR });
    const old = await setup({ failures: AUTO_DISABLE_FAILURES - 1, failingFor: 24 * HOUR });
    const fewer = await setup({ failures: AUTO_DISABLE_FAILURES - 2, failingFor: 48 * HOUR });
    // Act
    for (const run of [young, old, fewer]) await run.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' });
    // Assess: only the old streak switches off, and its other pending deliveries fail
    expect([young.disabled, old.disabled, fewer.disabled]).toEqual([[], ['we_1'], []]);
    expect(old.failedPending).toEqual(['whd_other']);
    expect(old.endpoint().enabled).toBe(false);
  });

  it('a success ends the failure streak', async () => {
    const run = await setup({ failures: 3, failingFor: HOUR, receiver: 'ok' });
    expect(await run.work({ workspaceId: WS, deliveryId: 'whd_1', attemptToken: 'tok-1' })).toBe('success');
    expect(run.endpoint()).toMatchObject({ consecutiveFailures: 0, failingSince: null });
  });
});
