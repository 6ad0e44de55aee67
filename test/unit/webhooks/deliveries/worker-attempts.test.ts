import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { claimOf } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import { signatureHeader } from '../../../../shared/webhooks/endpoints/signature.ts';
import { HOUR, MINUTE, T0 } from '../../support/fakes.ts';
import { answers, delivery, endpoint, SIGNING_SECRET, workerHarness, WS } from '../pipeline-support.ts';

const message = (attemptToken = 'tok-1') => ({ workspaceId: WS, deliveryId: 'whd_01', attemptToken });

describe('worker: which messages may start an attempt', () => {
  it('a message whose token the delivery no longer carries is dropped before any claim or send', async () => {
    // Prepare: the sweeper handed the delivery a new token after this message was queued.
    const h = workerHarness({ deliveries: [delivery({ attemptToken: 'tok-2' })], endpoints: [endpoint()] });
    // Act
    const outcome = await h.work(message('tok-1'));
    // Assess
    expect(outcome).toBe('dropped');
    expect(h.calls).not.toContain('claimAttempt');
    expect(h.requests).toHaveLength(0);
    expect(h.metrics.counts.dropped).toBe(1);
  });

  it('a message for a delivery that is no longer pending is dropped, even when its token still matches', async () => {
    const h = workerHarness({ deliveries: [delivery({ status: 'failed' })], endpoints: [endpoint()] });
    expect(await h.work(message())).toBe('dropped');
    expect(h.calls).not.toContain('claimAttempt');
    expect(h.requests).toHaveLength(0);
  });

  it('a claim made with a stale attempt token (swapped between read and claim) sends nothing and records nothing', async () => {
    // Prepare: the sweeper re-queues the delivery between the worker's read and its claim.
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] });
    const claim = h.store.claimAttempt;
    h.store.claimAttempt = async (...args) => {
      h.deliveries.get('whd_01')!.attemptToken = 'tok-sweeper';
      return claim(...args);
    };
    // Act
    const outcome = await h.work(message());
    // Assess
    expect(outcome).toBe('dropped');
    expect(h.requests).toHaveLength(0);
    expect(h.calls.filter((call) => call.startsWith('recordAttempt'))).toEqual([]);
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'pending', attempts: 0, attemptToken: 'tok-sweeper' });
  });

  it.each([
    ['paused', [endpoint({ enabled: false, disabledReason: 'paused' })], 'endpoint disabled'],
    ['deleted', [], 'endpoint deleted'],
  ])('a message for an endpoint that was %s fails the delivery without a send', async (_, endpoints, reason) => {
    const h = workerHarness({ deliveries: [delivery()], endpoints });
    expect(await h.work(message())).toBe('dropped');
    expect(h.requests).toHaveLength(0);
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'failed', lastError: reason });
  });

  it('an attempt in flight holds a claim token, so pausing the endpoint meanwhile does not fail it under the sender', async () => {
    // Prepare: the endpoint is paused (failPending of its queued deliveries) while the POST is under way.
    let paused: unknown = 'not run';
    const h = workerHarness(
      { deliveries: [delivery()], endpoints: [endpoint()] },
      {
        onSend: () => void (paused = h.store.failPending(WS, 'whd_01', 'endpoint paused', iso(T0))),
      },
    );
    // Act
    const outcome = await h.work(message());
    // Assess: the pause skipped the claimed delivery, and the attempt recorded its own result.
    expect(await paused).toBeUndefined();
    expect(outcome).toBe('success');
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'success', attempts: 1 });
  });
});

describe('worker: a message seen again after its worker died', () => {
  it('takes over its own claim once the lease ran out, and sends once', async () => {
    // Prepare: a worker claimed the attempt for tok-1 two minutes ago and died; SQS shows the message again.
    const h = workerHarness({
      deliveries: [delivery({ attemptToken: claimOf('tok-1', 'dead'), updatedAt: iso(T0 - 2 * MINUTE) })],
      endpoints: [endpoint()],
    });
    // Act
    const outcome = await h.work(message('tok-1'), { redelivered: true });
    // Assess
    expect(outcome).toBe('success');
    expect(h.requests).toHaveLength(1);
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'success', attempts: 1 });
  });

  it('fails the delivery when the endpoint was paused meanwhile, though the dead worker still holds the claim', async () => {
    // Prepare: the pause skipped the claimed delivery (an attempt seemed in flight); its worker had died.
    const h = workerHarness({
      deliveries: [delivery({ attemptToken: claimOf('tok-1', 'dead'), updatedAt: iso(T0 - 2 * MINUTE) })],
      endpoints: [endpoint({ enabled: false, disabledReason: 'paused' })],
    });
    // Act
    const outcome = await h.work(message('tok-1'), { redelivered: true });
    // Assess
    expect(outcome).toBe('dropped');
    expect(h.requests).toHaveLength(0);
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'failed', lastError: 'endpoint disabled', attemptToken: null });
  });

  it('a duplicate of a message whose attempt is in flight (a fresh claim) is dropped', async () => {
    const h = workerHarness({
      deliveries: [delivery({ attemptToken: claimOf('tok-1', 'alive'), updatedAt: iso(T0 - 5_000) })],
      endpoints: [endpoint()],
    });
    expect(await h.work(message('tok-1'), { redelivered: true })).toBe('dropped');
    expect(h.calls).not.toContain('claimAttempt');
    expect(h.requests).toHaveLength(0);
  });

  it("never takes over another message's claim, however old", async () => {
    const h = workerHarness({
      deliveries: [delivery({ attemptToken: claimOf('tok-2', 'dead'), updatedAt: iso(T0 - HOUR) })],
      endpoints: [endpoint()],
    });
    expect(await h.work(message('tok-1'), { redelivered: true })).toBe('dropped');
    expect(h.requests).toHaveLength(0);
  });

  it('a lease that runs out between the read and the claim is still only taken once', async () => {
    // Prepare: two copies of the message race for the same stale claim.
    const h = workerHarness({
      deliveries: [delivery({ attemptToken: claimOf('tok-1', 'dead'), updatedAt: iso(T0 - 2 * MINUTE) })],
      endpoints: [endpoint()],
    });
    // Act
    const outcomes = await Promise.all([h.work(message('tok-1'), { redelivered: true }), h.work(message('tok-1'), { redelivered: true })]);
    // Assess
    expect(outcomes.sort()).toEqual(['dropped', 'success']);
    expect(h.requests).toHaveLength(1);
  });
});

describe('worker: one attempt', () => {
  it('signs the body with the endpoint secret (opened under its own context) and numbers the attempt', async () => {
    const h = workerHarness({ deliveries: [delivery({ attempts: 2 })], endpoints: [endpoint()] });
    await h.work(message());
    const [request] = h.requests;
    expect(h.cipher.decrypted).toEqual([{ workspaceId: WS, endpointId: 'we_01' }]);
    expect(request!.headers['Service-Signature']).toBe(signatureHeader([SIGNING_SECRET], request!.body, T0 / 1000));
    expect(request!.headers['Service-Delivery-Attempt']).toBe('3');
    expect(request!.headers['Service-Delivery-Id']).toBe('whd_01');
  });

  it('a success finishes the delivery and ends the endpoint failure streak, with no write when there was none', async () => {
    const streak = workerHarness({
      deliveries: [delivery()],
      endpoints: [endpoint({ consecutiveFailures: 3, failingSince: iso(T0 - HOUR) })],
    });
    const clean = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] });
    expect(await streak.work(message())).toBe('success');
    expect(await clean.work(message())).toBe('success');
    expect(streak.endpoints.get('we_01')).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    expect(streak.calls).toContain('recordEndpointSuccess');
    expect(clean.calls).not.toContain('recordEndpointSuccess');
    expect(clean.deliveries.get('whd_01')).toMatchObject({ status: 'success', attempts: 1, attemptToken: null });
  });
});

describe('worker: retry schedule', () => {
  it.each([
    [0, MINUTE, false],
    [1, 5 * MINUTE, false],
    [2, 25 * MINUTE, true],
    [3, 2 * HOUR, true],
    [4, 12 * HOUR, true],
  ])(
    'after failed attempt %i+1 the next is due %i ms later (via the scheduler: %s) under a fresh token',
    async (made, delay, viaScheduler) => {
      // Prepare
      const h = workerHarness({ deliveries: [delivery({ attempts: made })], endpoints: [endpoint()] }, { result: answers.serverError });
      // Act
      const outcome = await h.work(message());
      // Assess: the queued message carries the token the delivery now holds, due when the delivery says.
      expect(outcome).toBe('retry');
      const stored = h.deliveries.get('whd_01')!;
      expect(h.queue.sent).toEqual([{ message: message(stored.attemptToken!), at: T0 + delay, viaScheduler }]);
      expect(stored).toMatchObject({ status: 'pending', attempts: made + 1, nextRetryAt: iso(T0 + delay) });
      expect(stored.attemptToken).not.toBe('tok-1');
      expect(h.metrics.counts[`retry:${viaScheduler ? 'scheduler' : 'sqs'}`]).toBe(1);
    },
  );

  it('WEBHOOK_TIME_SCALE shrinks the wait but not the channel', async () => {
    const h = workerHarness(
      { deliveries: [delivery({ attempts: 4 })], endpoints: [endpoint()] },
      { result: answers.serverError, timeScale: 0.001 },
    );
    await h.work(message());
    expect(h.queue.sent[0]).toMatchObject({ at: T0 + 43_200, viaScheduler: true });
  });

  it('the 6th failed attempt fails the delivery and counts it exhausted; nothing is queued', async () => {
    const h = workerHarness({ deliveries: [delivery({ attempts: 5 })], endpoints: [endpoint()] }, { result: answers.serverError });
    expect(await h.work(message())).toBe('failed');
    expect(h.queue.sent).toEqual([]);
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'failed', attempts: 6, statusCode: 503 });
    expect(h.metrics.counts.exhausted).toBe(1);
  });

  it('a manual retry is one attempt: its failure fails the delivery at once and is not counted exhausted', async () => {
    const h = workerHarness(
      { deliveries: [delivery({ attempts: 1, manual: true })], endpoints: [endpoint()] },
      { result: answers.serverError },
    );
    expect(await h.work(message())).toBe('failed');
    expect(h.queue.sent).toEqual([]);
    expect(h.metrics.counts.exhausted).toBeUndefined();
  });

  it('a failed attempt whose claim was taken back meanwhile schedules nothing', async () => {
    // Prepare: the sweeper took the attempt back (new token) while the POST was under way.
    const h = workerHarness(
      { deliveries: [delivery()], endpoints: [endpoint()] },
      {
        result: answers.serverError,
        onSend: () => void (h.deliveries.get('whd_01')!.attemptToken = 'tok-sweeper'),
      },
    );
    // Act / Assess
    expect(await h.work(message())).toBe('dropped');
    expect(h.queue.sent).toEqual([]);
    expect(h.deliveries.get('whd_01')).toMatchObject({ attempts: 0, attemptToken: 'tok-sweeper' });
  });
});
