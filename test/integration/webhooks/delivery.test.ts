import { afterAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { verifyWebhook } from '@secrets-service/sdk';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { checkWebhookEvent } from '../../support/contract.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { itemSize } from '../../../bench/billing.ts';

const stripe = new Stripe('sk_test_unused');

async function setup(behaviour: Parameters<typeof startReceiver>[0] = {}, events?: string[]) {
  const ws = await newWorkspace();
  const { project, environment } = await newEnvironment(ws.apiKey, { project: 'hooks', environment: 'prod' });
  const receiver = await startReceiver(behaviour);
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, events);
  const write = (key: string, value = 'v') =>
    call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value } });
  return { ws, project, environment, receiver, endpoint, write };
}

describe('webhook delivery', () => {
  const receivers: HttpsReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  it("delivers a signed event that Stripe's verifier accepts, with all six headers and no value", async () => {
    const { ws, project, environment, receiver, endpoint, write } = await setup();
    receivers.push(receiver);
    const secretId = (await write('API_TOKEN', 'never-in-an-event')).body.data.id;
    const request = await waitFor(async () => receiver.requests[0], 20_000, 'the delivery');
    const event = stripe.webhooks.constructEvent(
      request.body,
      request.headers['service-signature'] as string,
      endpoint.secret,
    ) as unknown as Record<string, any>;
    const workspace = await localStore().store.getWorkspace(ws.workspaceId);
    checkWebhookEvent(event as { type: string });
    // The SDK's verifier accepts a real delivery, headers as Node gives them (issue 14).
    expect(verifyWebhook(request.body, request.headers as Record<string, string>, endpoint.secret)).toEqual(event);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'service.secret.create',
      account: workspace!.accountId,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { secretId, key: 'API_TOKEN', version: 1, projectId: project.id, environmentId: environment.id, actorSub: ws.apiKeyId },
    });
    expect(request.body).not.toContain('never-in-an-event');
    expect(request.method).toBe('POST');
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'service-event-id': event.id,
      'service-event-type': 'service.secret.create',
      'service-delivery-id': expect.stringMatching(/^whd_/),
      'service-delivery-attempt': '1',
    });
    expect(request.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(ws.apiKey, endpoint.id);
      return list[0]?.status === 'success' ? list : undefined;
    });
    expect(delivery).toMatchObject({
      id: request.headers['service-delivery-id'],
      eventId: event.id,
      attempts: 1,
      statusCode: 200,
      lastError: null,
      nextRetryAt: null,
    });
    expect(delivery!.attemptLog).toEqual([
      { attempt: 1, at: expect.any(String), statusCode: 200, durationMs: expect.any(Number), error: null },
    ]);
    const raw = await localStore().doc.send(
      new GetCommand({ TableName: localStore().tableName, Key: keys.delivery(ws.workspaceId, delivery!.id) }),
    );
    expect(raw.Item!.ttl).toBe(Math.floor(Date.parse(raw.Item!.createdAt) / 1000) + 30 * 86_400);
    // The write-unit budget of a delivery: one write unit per write (1 KB), in the endpoint's log, not the sweeper's.
    expect(itemSize(raw.Item!)).toBeLessThanOrEqual(1024);
    expect(raw.Item).toMatchObject({ GSI3PK: `WHE#${endpoint.id}`, GSI3SK: delivery!.id });
    expect(raw.Item!.GSI1PK).toBeUndefined();
    expect(raw.Item!.GSI2PK).toBeUndefined();
    const byId = await call('GET', `/api/v1/webhook-deliveries/${delivery!.id}`, { token: ws.apiKey });
    expect(byId.body.data).toEqual(delivery);

    // success → pending on a manual retry: 202, and the same event is sent again.
    const retried = await call('POST', `/api/v1/webhook-deliveries/${delivery!.id}/retry`, { token: ws.apiKey });
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ id: delivery!.id, status: 'pending' });
    const second = await waitFor(async () => receiver.requests[1], 20_000, 'the resend');
    expect(second.body).toBe(request.body);
    expect(second.headers).toMatchObject({ 'service-event-id': event.id, 'service-delivery-attempt': '2' });
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id))[0]?.status === 'success');
  });

  it('names the machine identity as actor in a reveal event made with a machine token', async () => {
    const { ws, receiver, endpoint, write } = await setup({}, ['service.secret.reveal']);
    receivers.push(receiver);
    const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'ci' } })).body.data;
    const secretId = (await write('FOR_CI')).body.data.id;
    expect((await call('POST', `/api/v1/secrets/${secretId}/reveal`, { token: key.token })).status).toBe(200);
    const request = await waitFor(async () => receiver.requests[0]);
    const event = stripe.webhooks.constructEvent(
      request.body,
      request.headers['service-signature'] as string,
      endpoint.secret,
    ) as unknown as Record<string, any>;
    expect(event.type).toBe('service.secret.reveal');
    expect(event.data).toMatchObject({ secretId, key: 'FOR_CI', version: 1, actorSub: key.identityId });
    expect(event.data.actorSub).toMatch(/^mid_/);
  });

  it('retries a failing receiver on the (scaled) schedule with the same body and event id, then fails after the 6th attempt', async () => {
    const { ws, receiver, endpoint, write } = await setup({ status: 500, body: 'boom' });
    receivers.push(receiver);
    await write('FLAKY');
    const pending = await waitFor(async () =>
      (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.attempts >= 1 && d.status === 'pending'),
    );
    expect(pending.nextRetryAt).not.toBeNull();
    expect(pending.lastError).toBe('HTTP 500');
    const failed = await waitFor(
      async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.status === 'failed'),
      40_000,
      'six attempts',
    );
    expect(failed).toMatchObject({ attempts: 6, statusCode: 500, lastError: 'HTTP 500', nextRetryAt: null });
    expect(failed.attemptLog.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    const times = failed.attemptLog.map((a) => Date.parse(a.at));
    const scaledDelays = [60_000, 300_000, 1_500_000, 7_200_000, 43_200_000].map((ms) => ms * 0.0001);
    times.slice(1).forEach((t, i) => expect(t - times[i]!).toBeGreaterThanOrEqual(scaledDelays[i]! - 5));
    expect(receiver.requests).toHaveLength(6);
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((r) => r.headers['service-event-id'])).size).toBe(1);
    expect(receiver.requests.map((r) => r.headers['service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const r of receiver.requests) stripe.webhooks.constructEvent(r.body, r.headers['service-signature'] as string, endpoint.secret);

    // A manual retry: 202 with the delivery pending, one more attempt now.
    receiver.respond({ status: 204 });
    const retried = await call('POST', `/api/v1/webhook-deliveries/${failed.id}/retry`, { token: ws.apiKey });
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ id: failed.id, status: 'pending' });
    const again = await call('POST', `/api/v1/webhook-deliveries/${failed.id}/retry`, { token: ws.apiKey });
    if (again.status !== 202) expect(again.body.error.code).toBe('ALREADY_QUEUED');
    const succeeded = await waitFor(async () =>
      (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.id === failed.id && d.status === 'success'),
    );
    expect(succeeded.attempts).toBeGreaterThanOrEqual(7);
    expect(succeeded.attemptLog.at(-1)).toMatchObject({ statusCode: 204, error: null });
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { action: 'webhook_delivery.retry', target: failed.id });
    expect(audit.items.length).toBeGreaterThanOrEqual(1);
    // Sending again after success is allowed; a paused endpoint refuses the retry.
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    const disabled = await call('POST', `/api/v1/webhook-deliveries/${failed.id}/retry`, { token: ws.apiKey });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('ENDPOINT_DISABLED');
  }, 60_000);

  it('counts refused connections and redirects as failures with a clear lastError, never following the redirect', async () => {
    const target = await startReceiver();
    const redirecting = await setup({ status: 302, headers: { Location: `${target.origin}/elsewhere` } });
    receivers.push(target, redirecting.receiver);
    await redirecting.write('REDIRECTED');
    const redirected = await waitFor(async () =>
      (await deliveriesOf(redirecting.ws.apiKey, redirecting.endpoint.id)).find((d) => d.attempts >= 1),
    );
    expect(redirected.lastError).toBe(`redirect (302) to ${target.origin}/elsewhere not followed`);
    expect(redirected.statusCode).toBe(302);
    expect(target.connections()).toBe(0);

    const refusing = await setup();
    await refusing.receiver.close();
    await refusing.write('REFUSED');
    const refused = await waitFor(async () => (await deliveriesOf(refusing.ws.apiKey, refusing.endpoint.id)).find((d) => d.attempts >= 1));
    expect(refused).toMatchObject({ status: 'pending', statusCode: null, lastError: 'connection refused' });
  });

  it('times out a receiver that never answers after 10 s; a retry meanwhile is ALREADY_QUEUED', async () => {
    const { ws, receiver, endpoint, write } = await setup({ hang: true });
    receivers.push(receiver);
    await write('SLOW');
    await waitFor(async () => receiver.connections() > 0 && receiver.requests.length > 0);
    const [inFlight] = await deliveriesOf(ws.apiKey, endpoint.id);
    const retry = await call('POST', `/api/v1/webhook-deliveries/${inFlight!.id}/retry`, { token: ws.apiKey });
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('ALREADY_QUEUED');
    const timedOut = await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.attempts >= 1), 20_000);
    expect(timedOut).toMatchObject({ statusCode: null, lastError: 'timed out after 10 s' });
    expect(timedOut.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(9_900);
  }, 30_000);
});
