import { afterAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { call, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { deliveriesOf, waitFor } from '../../support/webhooks.ts';
import { auditOf, endpointWithReceiver, machineToken } from './support.ts';

const stripe = new Stripe('sk_test_unused');
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});
const setup = (behaviour: Parameters<typeof endpointWithReceiver>[1] = {}) => endpointWithReceiver(receivers, behaviour);

describe('test events', () => {
  it('sends a signed service.ping to that endpoint alone, whatever it subscribes to, and logs it as a delivery', async () => {
    const { ws, receiver, endpoint } = await setup();
    const answer = await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: ws.apiKey });
    expect(answer.status).toBe(202);
    expect(answer.body.data).toMatchObject({
      endpointId: endpoint.id,
      eventType: 'service.ping',
      status: 'pending',
      attempts: 0,
      attemptLog: [],
    });
    const request = await waitFor(async () => receiver.requests[0], 20_000, 'the test event');
    const event = stripe.webhooks.constructEvent(
      request.body,
      request.headers['service-signature'] as string,
      endpoint.secret,
    ) as unknown as Record<string, unknown>;
    expect(event).toMatchObject({ id: answer.body.data.eventId, type: 'service.ping', data: { endpointId: endpoint.id } });
    expect(request.headers).toMatchObject({
      'service-event-type': 'service.ping',
      'service-delivery-id': answer.body.data.id,
      'service-delivery-attempt': '1',
    });
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(ws.apiKey, endpoint.id);
      return list[0]?.status === 'success' ? list : undefined;
    });
    expect(delivery).toMatchObject({ id: answer.body.data.id, attempts: 1, statusCode: 200 });
    const [entry] = await auditOf(ws.apiKey, 'webhook_endpoint.test');
    expect(entry).toMatchObject({
      action: 'webhook_endpoint.test',
      target: endpoint.id,
      metadata: { deliveryId: delivery!.id, eventId: event.id },
    });
  });

  it('retries a test event that fails, like any delivery', async () => {
    const { ws, receiver, endpoint } = await setup();
    // The first attempt fails; the retry (after a scaled minute: milliseconds here) succeeds.
    let seen = 0;
    receiver.respond(() => ({ status: seen++ === 0 ? 500 : 204 }));
    const answer = await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: ws.apiKey });
    const done = await waitFor(
      async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.id === answer.body.data.id && d.status === 'success'),
      20_000,
      'the retry',
    );
    expect(done.attempts).toBe(2);
    expect(done.attemptLog.map((a) => a.statusCode)).toEqual([500, 204]);
  });

  it("refuses a disabled endpoint, another workspace's, and a machine token", async () => {
    const { ws, endpoint } = await setup();
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    const disabled = await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: ws.apiKey });
    expect([disabled.status, disabled.body.error.code]).toEqual([409, 'ENDPOINT_DISABLED']);
    const other = await newWorkspace();
    const foreign = await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: other.apiKey });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const machine = await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: await machineToken(ws.apiKey) });
    expect([machine.status, machine.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await deliveriesOf(ws.apiKey, endpoint.id)).toEqual([]);
  });
});
