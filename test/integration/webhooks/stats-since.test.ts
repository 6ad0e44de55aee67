import { afterAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { iso } from '../../../shared/platform/clock.ts';
import { logger } from '../../../shared/platform/logger.ts';
import { makeStatsRollup } from '../../../shared/webhooks/stats/stats-rollup.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { deliveriesOf, registerEndpoint, startReceiver, storedDelivery, waitFor } from '../../support/webhooks.ts';

/**
 * The statistics count deliveries created since `since` to the millisecond (decisions.md, "Webhook operations"),
 * whether the deliveries are counted one by one (past the rollup's watermark) or from rolled-up buckets and hours,
 * and a change after the rollup (a manual retry) is counted once.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Stats = { since: string; deliveries: number; succeeded: number; failed: number; pending: number };

/** A pending delivery of `endpointId` as the fan-out makes one, created at `at`: its id carries that time, as the fan-out's do. */
function deliveryAt(endpointId: string, at: number) {
  const createdAt = iso(at);
  // Not newId: its ids are monotonic within a process, so an earlier time after a later one would get the later one.
  return { ...storedDelivery(endpointId, 0), id: `whd_${ulid(at)}`, createdAt, updatedAt: createdAt };
}

const statsOf = async (token: string, endpointId: string, since?: number) =>
  (
    await call('GET', `/api/v1/webhooks/${endpointId}/stats${since === undefined ? '' : `?since=${encodeURIComponent(iso(since))}`}`, {
      token,
    })
  ).body.data as Stats;

/** The workspace's statistics rolled up as far as they go at once, by a rollup whose clock is `ahead` on. */
async function rollUpNow(workspaceId: string, ahead = 2 * HOUR) {
  const rollUp = makeStatsRollup({
    store: localStore().store,
    continueRollup: async () => undefined,
    clock: { now: () => Date.now() + ahead },
    log: logger,
  });
  return rollUp({ workspaceId, rollupUntil: Date.now() + ahead });
}

/** A workspace with an endpoint on a receiver that takes every event, and a way to write a secret. */
async function setup(receivers: HttpsReceiver[]) {
  const ws = await newWorkspace();
  const { environment } = await newEnvironment(ws.apiKey, { project: 'since', environment: 'prod' });
  const receiver = await startReceiver();
  receivers.push(receiver);
  receiver.respond({ status: 200 });
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.create']);
  const write = async (key: string) =>
    expect(
      (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } })).status,
    ).toBe(200);
  const delivered = (count: number) =>
    waitFor(
      async () => {
        const list = await deliveriesOf(ws.apiKey, endpoint.id);
        return list.length === count && list.every((d) => d.status === 'success') && list;
      },
      30_000,
      `${count} deliveries`,
    );
  return { ws, endpoint, write, delivered };
}

describe('webhook statistics since an instant', () => {
  const receivers: HttpsReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('count deliveries made before and after a since inside the same hour on the right side of it, before and after the rollup', async () => {
    // Prepare: two deliveries, then `since`, then three more, a few milliseconds apart within the same minutes
    const { ws, endpoint, write, delivered } = await setup(receivers);
    await write('BEFORE_1');
    await write('BEFORE_2');
    const before = await delivered(2);
    const since = Math.max(...before.map((d) => Date.parse(d.attemptLog[0]!.at))) + 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await write('AFTER_1');
    await write('AFTER_2');
    await write('AFTER_3');
    const all = await delivered(5);
    const created = new Map(
      (await Promise.all(all.map((d) => localStore().store.getDelivery(ws.workspaceId, d.id)))).map((d) => [
        d!.id,
        Date.parse(d!.createdAt),
      ]),
    );
    const after = [...created.values()].filter((at) => at >= since).length;
    const first = Math.min(...created.values());
    // Act: counted one by one, then from the rolled-up buckets (the rollup's clock two hours on)
    const counted = await statsOf(ws.apiKey, endpoint.id, since);
    expect(await rollUpNow(ws.workspaceId)).toBe('rolled');
    const rolled = await statsOf(ws.apiKey, endpoint.id, since);
    const everything = await statsOf(ws.apiKey, endpoint.id, first);
    const none = await statsOf(ws.apiKey, endpoint.id, Math.max(...created.values()) + 1);
    // Assess: exactly the three made after `since`, however they are counted; `since` as asked
    expect(after).toBe(3);
    expect(counted).toMatchObject({ since: iso(since), deliveries: 3, succeeded: 3, pending: 0, failed: 0 });
    expect(rolled).toMatchObject({ since: iso(since), deliveries: 3, succeeded: 3 });
    expect(everything).toMatchObject({ deliveries: 5, succeeded: 5 });
    expect(none).toMatchObject({ deliveries: 0 });
  }, 60_000);

  it('by default count the last 24 hours to the second: a delivery made 24 hours and a minute ago is out, 23 hours 59 minutes ago in', async () => {
    // Prepare: two deliveries as the fan-out makes them, one on each side of 24 hours ago
    const ws = await newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`);
    const { store } = localStore();
    for (const age of [DAY + MINUTE, DAY - MINUTE]) {
      const delivery = deliveryAt(endpoint.id, Date.now() - age);
      expect(await store.createDelivery(ws.workspaceId, delivery, Date.parse(delivery.createdAt))).toBe(true);
    }
    // Act
    const asked = Date.now();
    const counted = await statsOf(ws.apiKey, endpoint.id);
    expect(await rollUpNow(ws.workspaceId)).toBe('rolled');
    const rolled = await statsOf(ws.apiKey, endpoint.id);
    const answered = Date.now();
    // Assess: one delivery either way, and the answer's since is 24 hours before the call, to the second
    for (const stats of [counted, rolled]) {
      expect(stats).toMatchObject({ deliveries: 1, pending: 1 });
      expect(Date.parse(stats.since)).toBeGreaterThanOrEqual(asked - DAY);
      expect(Date.parse(stats.since)).toBeLessThanOrEqual(answered - DAY);
      expect(answered - asked).toBeLessThan(60_000);
    }
  });

  it('count a failed delivery retried by hand after the rollup once, as it ends up', async () => {
    // Prepare: a delivery failed before its bucket was rolled up
    const ws = await newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.respond({ status: 200 });
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`);
    const { store } = localStore();
    const delivery = deliveryAt(endpoint.id, Date.now() - 10 * MINUTE);
    expect(await store.createDelivery(ws.workspaceId, delivery, Date.parse(delivery.createdAt))).toBe(true);
    expect(
      await store.failPending(ws.workspaceId, delivery.id, 'endpoint paused', iso(Date.parse(delivery.createdAt) + 1000)),
    ).toBeDefined();
    expect(await rollUpNow(ws.workspaceId, 0)).toBe('rolled');
    const rolled = await statsOf(ws.apiKey, endpoint.id);
    // Act: a manual retry, which the receiver takes
    expect((await call('POST', `/api/v1/webhook-deliveries/${delivery.id}/retry`, { token: ws.apiKey })).status).toBe(202);
    const during = await statsOf(ws.apiKey, endpoint.id);
    await waitFor(async () => (await store.getDelivery(ws.workspaceId, delivery.id))?.status === 'success');
    const after = await waitFor(
      async () => {
        const stats = await statsOf(ws.apiKey, endpoint.id);
        return stats.succeeded === 1 && stats;
      },
      20_000,
      'the success counted',
    );
    // Assess: one delivery throughout; failed, then out of failed while it is pending again, then succeeded
    expect(rolled).toMatchObject({ deliveries: 1, failed: 1, succeeded: 0, pending: 0 });
    expect(during.deliveries).toBe(1);
    expect(during.failed).toBe(0);
    expect(after).toMatchObject({ deliveries: 1, failed: 0, succeeded: 1, pending: 0 });
  });
});
