import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { HOUR, T0 } from '../../support/fakes.ts';
import { answers, delivery, endpoint, workerHarness, WS } from '../pipeline-support.ts';

const message = { workspaceId: WS, deliveryId: 'whd_01', attemptToken: 'tok-1' };

describe('worker: the endpoint statistics of each attempt', () => {
  it('a success counts the delivery as succeeded, with its duration and time, in the hour it was created', async () => {
    // Prepare: a delivery created five hours before its attempt
    const h = workerHarness({ deliveries: [delivery({ createdAt: iso(T0 - 5 * HOUR) })], endpoints: [endpoint()] });
    // Act
    await h.work(message);
    // Assess
    expect(h.stats).toEqual([
      { endpointId: 'we_01', createdAt: iso(T0 - 5 * HOUR), change: { succeeded: 1, successAt: iso(T0), durationMs: 12 } },
    ]);
    expect(h.calls.indexOf('recordDeliveryStats')).toBeGreaterThan(h.calls.indexOf('recordAttempt:success'));
  });

  it('a failure with a retry scheduled counts its duration and time, and the delivery stays pending', async () => {
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] }, { result: answers.serverError });
    expect(await h.work(message)).toBe('retry');
    expect(h.stats).toEqual([{ endpointId: 'we_01', createdAt: iso(T0), change: { failureAt: iso(T0), durationMs: 40 } }]);
  });

  it('the last attempt failing counts the delivery as failed', async () => {
    const h = workerHarness({ deliveries: [delivery({ attempts: 5 })], endpoints: [endpoint()] }, { result: answers.serverError });
    expect(await h.work(message)).toBe('failed');
    expect(h.stats).toEqual([{ endpointId: 'we_01', createdAt: iso(T0), change: { failed: 1, failureAt: iso(T0), durationMs: 40 } }]);
  });

  it('a manual retry is final either way: failed or succeeded', async () => {
    const failing = workerHarness(
      { deliveries: [delivery({ attempts: 6, manual: true })], endpoints: [endpoint()] },
      { result: answers.serverError },
    );
    const passing = workerHarness({ deliveries: [delivery({ attempts: 6, manual: true })], endpoints: [endpoint()] });
    expect(await failing.work(message)).toBe('failed');
    expect(await passing.work(message)).toBe('success');
    expect(failing.stats.map((s) => s.change)).toEqual([{ failed: 1, failureAt: iso(T0), durationMs: 40 }]);
    expect(passing.stats.map((s) => s.change)).toEqual([{ succeeded: 1, successAt: iso(T0), durationMs: 12 }]);
  });

  it('an attempt whose result was not recorded (its claim lost) counts nothing', async () => {
    // Prepare: the claim is swapped away while the POST is under way
    const h = workerHarness(
      { deliveries: [delivery()], endpoints: [endpoint()] },
      { onSend: () => void (h.deliveries.get('whd_01')!.attemptToken = 'tok-other') },
    );
    // Act
    await h.work(message);
    // Assess
    expect(h.stats).toEqual([]);
  });

  it('a message dropped before any attempt counts nothing', async () => {
    const h = workerHarness({ deliveries: [delivery({ attemptToken: 'tok-2' })], endpoints: [endpoint()] });
    expect(await h.work(message)).toBe('dropped');
    expect(h.stats).toEqual([]);
  });

  it('a statistics write that fails is logged, and the attempt still finishes as recorded', async () => {
    // Prepare
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint({ consecutiveFailures: 2, failingSince: iso(T0 - HOUR) })] });
    h.store.recordDeliveryStats = async () => {
      throw Object.assign(new Error('throttled'), { name: 'ServiceUnavailableError' });
    };
    // Act
    const outcome = await h.work(message);
    // Assess
    expect(outcome).toBe('success');
    expect(h.deliveries.get('whd_01')).toMatchObject({ status: 'success' });
    expect(h.calls).toContain('recordEndpointSuccess');
    expect(h.log.lines).toEqual([{ level: 'warn', message: 'delivery statistics not recorded' }]);
  });
});
