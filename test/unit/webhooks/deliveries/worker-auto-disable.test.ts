import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { HOUR, T0 } from '../../support/fakes.ts';
import { answers, delivery, endpoint, workerHarness, WS } from '../pipeline-support.ts';

const message = { workspaceId: WS, deliveryId: 'whd_01', attemptToken: 'tok-1' };

/** An endpoint that has failed `before` times in a row since T0, and a worker whose attempt fails `hoursLater`. */
function failingFor(before: number, hoursLater: number, extra: { timeScale?: number; deliveries?: ReturnType<typeof delivery>[] } = {}) {
  return workerHarness(
    {
      deliveries: [delivery(), ...(extra.deliveries ?? [])],
      endpoints: [endpoint({ consecutiveFailures: before, failingSince: iso(T0) }), endpoint({ id: 'we_02' })],
    },
    { result: answers.serverError, now: T0 + hoursLater * HOUR, timeScale: extra.timeScale ?? 1 },
  );
}

describe('worker: automatic switch-off', () => {
  it('the 20th failure in a row, 24 h into the streak, switches the endpoint off with a system audit entry', async () => {
    // Prepare
    const h = failingFor(19, 24);
    // Act
    await h.work(message);
    // Assess
    expect(h.endpoints.get('we_01')).toMatchObject({ enabled: false, consecutiveFailures: 20, disabledAt: iso(T0 + 24 * HOUR) });
    expect(h.endpoints.get('we_01')!.disabledReason).toContain('20 failed attempts');
    expect(h.audits).toHaveLength(1);
    expect(h.audits[0]).toMatchObject({ action: 'webhook_endpoint.disabled', actorSub: 'system', target: 'we_01', accountId: 'acc_test' });
    expect(h.audits[0]!.metadata).toMatchObject({ consecutiveFailures: 20, failingSince: iso(T0) });
    expect(h.metrics.counts.autoDisabled).toBe(1);
    expect(h.log.lines).toEqual([{ level: 'warn', message: 'webhook endpoint switched off' }]);
  });

  it("names the endpoint's url in the entry (and so in the disabled event) without its query string", async () => {
    // Prepare: a receiver that takes a token in its query string
    const h = workerHarness(
      {
        deliveries: [delivery()],
        endpoints: [endpoint({ url: 'https://hooks.example.com/in?token=abc', consecutiveFailures: 19, failingSince: iso(T0) })],
      },
      { result: answers.serverError, now: T0 + 24 * HOUR, timeScale: 1 },
    );
    // Act
    await h.work(message);
    // Assess
    expect(h.audits[0]!.metadata.url).toBe('https://hooks.example.com/in?…');
    expect(JSON.stringify(h.audits)).not.toContain('token=abc');
  });

  it('the 20th failure only 23 h into the streak does not switch it off', async () => {
    const h = failingFor(19, 23);
    await h.work(message);
    expect(h.endpoints.get('we_01')).toMatchObject({ enabled: true, consecutiveFailures: 20 });
    expect(h.calls).not.toContain('autoDisableEndpoint');
  });

  it('the 19th failure, even 48 h into the streak, does not switch it off', async () => {
    const h = failingFor(18, 48);
    await h.work(message);
    expect(h.endpoints.get('we_01')).toMatchObject({ enabled: true, consecutiveFailures: 19 });
    expect(h.calls).not.toContain('autoDisableEndpoint');
  });

  it('the 24 h window is scaled by WEBHOOK_TIME_SCALE (locally 86.4 s at 0.001)', async () => {
    const scaled = failingFor(19, 0.024, { timeScale: 0.001 });
    const unscaled = failingFor(19, 0.024);
    await scaled.work(message);
    await unscaled.work(message);
    expect(scaled.endpoints.get('we_01')!.enabled).toBe(false);
    expect(unscaled.endpoints.get('we_01')!.enabled).toBe(true);
  });

  it("switching off fails the endpoint's queued deliveries (the retry just queued too) and no other endpoint's", async () => {
    // Prepare
    const h = failingFor(19, 24, {
      deliveries: [delivery({ id: 'whd_02', attemptToken: 'tok-2' }), delivery({ id: 'whd_03', endpointId: 'we_02' })],
    });
    // Act
    await h.work(message);
    // Assess
    const reason = 'endpoint switched off after repeated failures';
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'failed', lastError: reason, attempts: 1 });
    expect(h.deliveries.get('whd_02')).toMatchObject({ status: 'failed', lastError: reason });
    expect(h.deliveries.get('whd_03')).toMatchObject({ status: 'pending' });
  });

  it('an endpoint switched off by a concurrent worker is not switched off twice: no audit, no metric, no sweep of its deliveries', async () => {
    // Prepare: another worker's switch-off lands between this failure count and this switch-off.
    const h = failingFor(19, 24, { deliveries: [delivery({ id: 'whd_02', attemptToken: 'tok-2' })] });
    const autoDisable = h.store.autoDisableEndpoint;
    h.store.autoDisableEndpoint = async (...args) => {
      h.endpoints.get('we_01')!.enabled = false;
      return autoDisable(...args);
    };
    // Act
    await h.work(message);
    // Assess
    expect(h.audits).toEqual([]);
    expect(h.metrics.counts.autoDisabled).toBeUndefined();
    expect(h.calls.filter((call) => call.startsWith('failPending'))).toEqual([]);
    expect(h.deliveries.get('whd_02')!.status).toBe('pending');
  });

  it('a failure counted on an endpoint already off (paused during the attempt) does not try to switch it off', async () => {
    const h = failingFor(19, 24);
    const countFailure = h.store.recordEndpointFailure;
    h.store.recordEndpointFailure = async (...args) => {
      h.endpoints.get('we_01')!.enabled = false;
      return countFailure(...args);
    };
    await h.work(message);
    expect(h.calls).not.toContain('autoDisableEndpoint');
  });
});
