import { afterAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { call, localStore } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import { workspaceWithEnvironment } from './support.ts';

const stripe = new Stripe('sk_test_unused');
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('endpoint switch-off and pause', () => {
  it('switches off an endpoint after 20 failures spanning the (scaled) 24 hours, fails its queue and tells the other endpoint', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const failing = await startReceiver({ status: 503 });
    const watcher = await startReceiver();
    receivers.push(failing, watcher);
    const bad = await registerEndpoint(ws.apiKey, `${failing.origin}/bad`, ['service.secret.create']);
    const good = await registerEndpoint(ws.apiKey, `${watcher.origin}/watch`, ['service.webhook_endpoint.disabled']);
    // Events keep coming, so failures go on past the (scaled) 24-hour window.
    let writes = 0;
    const writing = (async () => {
      for (; writes < 40; writes++) {
        const endpoint = await localStore().store.getEndpoint(ws.workspaceId, bad.id);
        if (!endpoint?.enabled) return;
        await write(`K${writes}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    // A short outage never switches off: 20 failures within the window leave the endpoint on.
    const streak = await waitFor(
      async () => {
        const endpoint = await localStore().store.getEndpoint(ws.workspaceId, bad.id);
        return endpoint && endpoint.consecutiveFailures >= 20 ? endpoint : undefined;
      },
      30_000,
      '20 failures',
    );
    if (Date.now() - Date.parse(streak.failingSince!) < 0.8 * 86_400_000 * 0.0001) expect(streak.enabled).toBe(true);

    const off = await waitFor(
      async () => {
        const list = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data as { id: string; enabled: boolean }[];
        return list.find((e) => e.id === bad.id && !e.enabled);
      },
      40_000,
      'the switch-off',
    );
    await writing;
    expect(off).toMatchObject({
      enabled: false,
      disabledAt: expect.any(String),
      disabledReason: expect.stringMatching(/failed attempts in a row/),
    });
    expect((off as unknown as { consecutiveFailures: number }).consecutiveFailures).toBeGreaterThanOrEqual(20);
    expect(
      Date.parse((off as unknown as { disabledAt: string }).disabledAt) -
        Date.parse((off as unknown as { failingSince: string }).failingSince),
    ).toBeGreaterThanOrEqual(86_400_000 * 0.0001);

    const notice = await waitFor(async () => watcher.requests[0], 20_000, 'the disabled event');
    const event = stripe.webhooks.constructEvent(
      notice.body,
      notice.headers['service-signature'] as string,
      good.secret,
    ) as unknown as Record<string, any>;
    expect(event.type).toBe('service.webhook_endpoint.disabled');
    expect(event.data).toMatchObject({
      endpointId: bad.id,
      url: bad.url,
      disabledReason: expect.any(String),
      consecutiveFailures: expect.any(Number),
      failingSince: expect.any(String),
    });
    const deliveries = await waitFor(
      async () => {
        const list = await deliveriesOf(ws.apiKey, bad.id);
        return list.every((d) => d.status === 'failed') ? list : undefined;
      },
      10_000,
      'the queue to fail',
    );
    // Writes fanned out after the switch-off make no delivery for it.
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    expect(deliveries.length).toBeLessThanOrEqual(writes);
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { action: 'webhook_endpoint.disabled' });
    expect(audit.items[0]).toMatchObject({ target: bad.id, actorSub: 'system' });

    // Enabling again clears the streak; no event went to the switched-off endpoint itself.
    const enabled = await call('PATCH', `/api/v1/webhooks/${bad.id}`, { token: ws.apiKey, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
    });
    expect(failing.requests.every((r) => r.headers['service-event-type'] === 'service.secret.create')).toBe(true);
  }, 90_000);

  it('pausing fails queued deliveries, queues nothing while paused, and re-enabling clears the streak', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const receiver = await startReceiver({ status: 500 });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/p`, ['service.secret.create']);
    await write('BEFORE');
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.attempts >= 1 && d.status === 'pending'));
    const paused = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    expect(paused.body.data).toMatchObject({ enabled: false, disabledReason: 'paused', consecutiveFailures: expect.any(Number) });
    // Failed at once, or, if an attempt was in flight, as soon as it has recorded its result.
    const failed = await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.status === 'failed'), 15_000);
    expect(failed).toMatchObject({ status: 'failed', nextRetryAt: null });
    expect(failed.lastError).toMatch(/^endpoint (paused|disabled)$/);
    const sent = receiver.requests.length;
    await write('WHILE_PAUSED');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await deliveriesOf(ws.apiKey, endpoint.id)).toHaveLength(1);
    expect(receiver.requests.length).toBe(sent);
    const resumed = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: true } });
    expect(resumed.body.data).toMatchObject({ enabled: true, consecutiveFailures: 0, failingSince: null, disabledAt: null });
  }, 30_000);
});

describe('pause during an attempt', () => {
  it('lets an attempt in flight finish and record its result, then fails the delivery', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const receiver = await startReceiver({ hang: true });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/slow`, ['service.secret.create']);
    await write('IN_FLIGHT');
    await waitFor(async () => receiver.requests.length > 0, 20_000, 'the attempt to start');
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    expect((await deliveriesOf(ws.apiKey, endpoint.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    const failed = await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.status === 'failed'), 25_000);
    expect(failed.attemptLog).toEqual([expect.objectContaining({ attempt: 1, error: 'timed out after 10 s' })]);
    expect(failed.lastError).toBe('endpoint disabled');
    expect(receiver.requests).toHaveLength(1);
  }, 40_000);
});
