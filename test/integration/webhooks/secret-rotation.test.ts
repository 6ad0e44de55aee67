import { afterAll, describe, expect, inject, it } from 'vitest';
import Stripe from 'stripe';
import { join } from 'node:path';
import { verifyWebhook } from '@secrets-service/sdk';
import { auditEntry } from '../../../shared/audit/audit-entry.ts';
import { iso } from '../../../shared/platform/clock.ts';
import { makeCipher } from '../../../shared/platform/crypto/envelope.ts';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../../../shared/platform/crypto/local-keyring.ts';
import { logger } from '../../../shared/platform/logger.ts';
import { makeDeliveryMetrics } from '../../../shared/webhooks/deliveries/metrics.ts';
import { makeWorker } from '../../../shared/webhooks/deliveries/worker.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver, ReceivedRequest } from '../../support/https-receiver.ts';
import { newEnvironment, scanTable, textsOf } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, storedDelivery, waitFor } from '../../support/webhooks.ts';

const stripe = new Stripe('sk_test_unused');
const HOUR = 3_600_000;
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A workspace with an endpoint on a live receiver; `nextDelivery` writes a secret and answers the request it makes. */
async function setup() {
  const ws = await newWorkspace();
  const { environment } = await newEnvironment(ws.apiKey, { project: 'rotation', environment: 'prod' });
  const receiver = await startReceiver();
  receivers.push(receiver);
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.create']);
  let writes = 0;
  const nextDelivery = async (): Promise<ReceivedRequest> => {
    const seen = receiver.requests.length;
    await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: `K${writes++}`, value: 'v' } });
    return waitFor(async () => receiver.requests[seen], 20_000, 'the delivery');
  };
  const rotate = (body?: unknown, options: { token?: string; headers?: Record<string, string>; id?: string } = {}) =>
    call('POST', `/api/v1/webhooks/${options.id ?? endpoint.id}/rotate-secret`, {
      token: options.token ?? ws.apiKey,
      ...(body === undefined ? {} : { body }),
      ...(options.headers ? { headers: options.headers } : {}),
    });
  return { ws, receiver, endpoint, nextDelivery, rotate };
}

/** Whether Stripe's verifier accepts the request with `secret` (as of `receivedAt`, default now). */
function stripeAccepts(request: { body: string; signature: string }, secret: string, receivedAt?: number): boolean {
  try {
    stripe.webhooks.constructEvent(request.body, request.signature, secret, 300, undefined, receivedAt);
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return false;
    throw error;
  }
}
const signed = (request: ReceivedRequest) => ({ body: request.body, signature: request.headers['service-signature'] as string });
const v1Count = (signature: string) => signature.split(',').filter((part) => part.startsWith('v1=')).length;

describe('POST /api/v1/webhooks/{id}/rotate-secret', () => {
  it('with the default overlap signs the next delivery with both: Stripe verifies it with the old and with the new secret', async () => {
    // Prepare
    const { ws, endpoint, nextDelivery, rotate } = await setup();
    // Act
    const before = Date.now();
    const rotated = await rotate();
    const request = await nextDelivery();
    // Assess: the answer carries the new secret once
    expect(rotated.status).toBe(200);
    const { secret, secretHint, previousSecretExpiresAt } = rotated.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(endpoint.secret);
    expect(secretHint).toBe(`whsec_…${secret.slice(-4)}`);
    expect(secretHint).not.toBe(endpoint.secretHint);
    expect(Date.parse(previousSecretExpiresAt) - before).toBeGreaterThanOrEqual(24 * HOUR - 1_000);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeLessThanOrEqual(24 * HOUR);
    // …and the delivery is signed with both, newest first
    expect(request.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(signed(request), secret)).toBe(true);
    expect(stripeAccepts(signed(request), endpoint.secret)).toBe(true);
    expect(stripeAccepts(signed(request), 'whsec_a_third_secret_that_never_signed_000000')).toBe(false);
    expect(verifyWebhook(request.body, request.headers as Record<string, string>, [endpoint.secret]).type).toBe('service.secret.create');
    // Later reads show the hint and the overlap, never a secret
    const listed = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data as Record<string, unknown>[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: endpoint.id, secretHint, previousSecretExpiresAt });
    expect(listed[0]).not.toHaveProperty('secret');
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('with expireCurrentInHours 0 ends the old secret at once: only the new one verifies', async () => {
    const { endpoint, nextDelivery, rotate } = await setup();
    const rotated = await rotate({ expireCurrentInHours: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.previousSecretExpiresAt).toBeNull();
    const request = await nextDelivery();
    expect(v1Count(signed(request).signature)).toBe(1);
    expect(stripeAccepts(signed(request), rotated.body.data.secret)).toBe(true);
    expect(stripeAccepts(signed(request), endpoint.secret)).toBe(false);
  });

  it('rotating again ends the first secret at once: the second and the third sign, the first no longer does', async () => {
    const { endpoint, nextDelivery, rotate } = await setup();
    const second = (await rotate({ expireCurrentInHours: 48 })).body.data.secret as string;
    const third = (await rotate({})).body.data.secret as string;
    const request = await nextDelivery();
    expect(v1Count(signed(request).signature)).toBe(2);
    expect(stripeAccepts(signed(request), third)).toBe(true);
    expect(stripeAccepts(signed(request), second)).toBe(true);
    expect(stripeAccepts(signed(request), endpoint.secret)).toBe(false);
  });

  it('after the overlap only the new secret signs (the worker driven with a clock past the expiry)', async () => {
    // Prepare: a rotation with the default overlap, and two deliveries the worker is handed directly
    const { ws, endpoint, rotate } = await setup();
    const { store } = localStore();
    const secret = (await rotate()).body.data.secret as string;
    const sent: string[] = [];
    const workerAt = (now: number) =>
      makeWorker({
        store,
        cipher: makeCipher({ keys: makeLocalKeyring({ keyFile: join(inject('localDir'), LOCAL_MASTER_KEY_FILE) }) }),
        clock: { now: () => now },
        send: async (request) => (
          sent.push(request.headers['Service-Signature']!), { ok: true, statusCode: 204, durationMs: 1, error: null }
        ),
        enqueue: async () => undefined,
        timeScale: 1,
        metrics: makeDeliveryMetrics(),
        log: logger,
      });
    const [during, after] = [storedDelivery(endpoint.id, 1), storedDelivery(endpoint.id, 2)];
    for (const delivery of [during, after]) await store.createDelivery(ws.workspaceId, delivery, Date.now());
    const later = Date.now() + 24 * HOUR + 60_000;
    // Act
    expect(await workerAt(Date.now())({ workspaceId: ws.workspaceId, deliveryId: during.id, attemptToken: during.attemptToken! })).toBe(
      'success',
    );
    expect(await workerAt(later)({ workspaceId: ws.workspaceId, deliveryId: after.id, attemptToken: after.attemptToken! })).toBe('success');
    // Assess
    const [both, newOnly] = sent.map((signature) => ({ body: during.body, signature }));
    expect(v1Count(both!.signature)).toBe(2);
    expect(stripeAccepts(both!, endpoint.secret)).toBe(true);
    expect(v1Count(newOnly!.signature)).toBe(1);
    expect(stripeAccepts(newOnly!, secret, later)).toBe(true);
    expect(stripeAccepts(newOnly!, endpoint.secret, later)).toBe(false);
  });

  it('an Idempotency-Key replay answers the same secret and rotates once; no secret is stored in plaintext', async () => {
    // Prepare
    const { ws, endpoint, rotate } = await setup();
    const headers = { 'idempotency-key': `rotate-${Date.now()}` };
    // Act
    const first = await rotate({ expireCurrentInHours: 2 }, { headers });
    const replay = await rotate({ expireCurrentInHours: 2 }, { headers });
    // Assess
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    const listed = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data as { secretHint: string }[];
    expect(listed[0]!.secretHint).toBe(first.body.data.secretHint);
    const audit = (await call('GET', `/api/v1/audit?action=webhook_endpoint.secret_rotate&target=${endpoint.id}`, { token: ws.apiKey }))
      .body.data;
    expect(audit).toHaveLength(1);
    const texts = textsOf(await scanTable());
    for (const secret of [first.body.data.secret as string, endpoint.secret])
      expect(texts.some((text) => text.includes(secret.slice('whsec_'.length)))).toBe(false);
  });

  it('is audited as webhook_endpoint.secret_rotate with the endpoint as target, without either secret or hint', async () => {
    const { ws, endpoint, rotate } = await setup();
    const rotated = (await rotate({ expireCurrentInHours: 6 })).body.data;
    const audit = (await call('GET', `/api/v1/audit?action=webhook_endpoint.secret_rotate&target=${endpoint.id}`, { token: ws.apiKey }))
      .body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'webhook_endpoint.secret_rotate',
      target: endpoint.id,
      actorSub: ws.apiKeyId,
      metadata: { expireCurrentInHours: 6, previousSecretExpiresAt: rotated.previousSecretExpiresAt, credentialKind: 'api_key' },
    });
    const entry = JSON.stringify(audit[0]);
    for (const material of [
      rotated.secret,
      endpoint.secret,
      rotated.secretHint,
      endpoint.secretHint,
      rotated.secret.slice(-4),
      endpoint.secret.slice(-4),
    ]) {
      expect(entry).not.toContain(material);
    }
  });

  it('takes 0 to 48 whole hours; anything else is VALIDATION_ERROR naming the field and the rule', async () => {
    const { rotate } = await setup();
    for (const hours of [0, 48]) expect((await rotate({ expireCurrentInHours: hours })).status).toBe(200);
    for (const hours of [-1, 49, 1.5, '24', null]) {
      const refused = await rotate({ expireCurrentInHours: hours });
      expect(refused.status, JSON.stringify(hours)).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'expireCurrentInHours: must be an integer from 0 to 48',
      });
    }
    const unknown = await rotate({ expireCurrentInHours: 1, expiresInHours: 1 });
    expect(unknown.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'expiresInHours: is not a known field' });
  });

  it("rotates a paused endpoint; another workspace's endpoint is NOT_FOUND; a machine token is FORBIDDEN", async () => {
    const { ws, endpoint, rotate } = await setup();
    expect((await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } })).status).toBe(200);
    const paused = await rotate({ expireCurrentInHours: 0 });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ enabled: false, disabledReason: 'paused' });
    const other = await newWorkspace();
    const foreign = await rotate(undefined, { token: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    const machine = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'ci' } })).body.data.token as string;
    const forbidden = await rotate(undefined, { token: machine });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const hint = ((await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data as { secretHint: string }[])[0]!.secretHint;
    expect(hint).toBe(paused.body.data.secretHint);
  });

  it('does not silently undo a change made between its read and its write (CONFLICT), nor a rotation made meanwhile', async () => {
    // Prepare: the rotation's read, then a PATCH
    const { ws, endpoint, rotate } = await setup();
    const { store } = localStore();
    const read = (await store.getEndpoint(ws.workspaceId, endpoint.id))!;
    expect(
      (await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { description: 'changed meanwhile' } })).status,
    ).toBe(200);
    const principal = { actorSub: ws.apiKeyId, kind: 'api_key' as const, accountId: read.accountId };
    const stale = () => {
      const now = Date.now();
      const next = {
        ...read,
        secretHint: 'whsec_…lost',
        updatedAt: iso(now),
        previousSealedSecret: read.sealedSecret,
        previousSecretExpiresAt: iso(now + HOUR),
      };
      return store.rotateEndpointSecret(
        ws.workspaceId,
        next,
        { updatedAt: read.updatedAt, secret: read.sealedSecret },
        auditEntry(principal, 'webhook_endpoint.secret_rotate', endpoint.id, {}, now),
      );
    };
    // Act / Assess: the write from the stale read is refused, and the PATCH stands
    await expect(stale()).rejects.toMatchObject({ code: 'CONFLICT' });
    const after = (await store.getEndpoint(ws.workspaceId, endpoint.id))!;
    expect(after).toMatchObject({ description: 'changed meanwhile', secretHint: endpoint.secretHint, previousSecretExpiresAt: null });
    // A rotation through the API that lands in the same millisecond as the stale read is caught by the secret too
    const rotated = (await rotate()).body.data;
    const current = (await store.getEndpoint(ws.workspaceId, endpoint.id))!;
    const sameInstant = { ...current, updatedAt: current.updatedAt, secretHint: 'whsec_…lost' };
    const raced = store.rotateEndpointSecret(
      ws.workspaceId,
      sameInstant,
      { updatedAt: current.updatedAt, secret: read.sealedSecret },
      auditEntry(principal, 'webhook_endpoint.secret_rotate', endpoint.id, {}, Date.now()),
    );
    await expect(raced).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.getEndpoint(ws.workspaceId, endpoint.id))!.secretHint).toBe(rotated.secretHint);
    const audit = (await call('GET', `/api/v1/audit?action=webhook_endpoint.secret_rotate&target=${endpoint.id}`, { token: ws.apiKey }))
      .body.data;
    expect(audit).toHaveLength(1);
    const unknown = await rotate(undefined, { id: 'we_01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});
