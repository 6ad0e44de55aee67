import * as z from 'zod/mini';
import { webhookEndpointAnswer, webhookEndpointCreated } from '../../../../shared/webhooks/endpoints/webhook-answers.ts';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import type { AuditEntry } from '../../../../shared/audit/audit-store.ts';
import type { StoredEndpoint } from '../../../../shared/webhooks/endpoints/endpoint-store.ts';
import type { SealedValue } from '../../../../shared/platform/crypto/envelope.ts';
import { makeWebhookService, type WebhookServiceStore } from '../../../../shared/webhooks/endpoints/webhook-service.ts';
import { caught, fakeCipher, fakeClock, HOUR, principal, T0 } from '../../support/fakes.ts';
import { endpoint } from '../pipeline-support.ts';

/** An endpoint store in memory with queued deliveries per endpoint; every write is logged for the assertions. */
function harness(endpoints: StoredEndpoint[] = [], refused: string[] = []) {
  const stored = new Map(endpoints.map((e) => [e.id, structuredClone(e)]));
  const queued = new Map<string, string[]>([['we_01', ['whd_01', 'whd_02']]]);
  const failed: { id: string; reason: string }[] = [];
  const updates: { endpoint: StoredEndpoint; readUpdatedAt: string; resetStreak: boolean; audit: AuditEntry }[] = [];
  const rotations: { endpoint: StoredEndpoint; read: { updatedAt: string; secret: SealedValue }; audit: AuditEntry }[] = [];
  const deleted: string[] = [];
  const checked: string[] = [];
  const empty = { items: [], nextCursor: null, hasMore: false };
  const store: WebhookServiceStore = {
    listEndpointPage: async () => ({ items: [...stored.values()], nextCursor: null, hasMore: false }),
    getEndpoint: async (_ws, id) => structuredClone(stored.get(id)),
    endpointByIdKeys: () => [],
    createEndpoint: async (_ws, e) => void stored.set(e.id, e),
    async updateEndpoint(_ws, e, readUpdatedAt, resetStreak, audit) {
      updates.push({ endpoint: e, readUpdatedAt, resetStreak, audit });
      stored.set(e.id, e);
    },
    async rotateEndpointSecret(_ws, e, read, audit) {
      rotations.push({ endpoint: e, read, audit });
      stored.set(e.id, e);
    },
    deleteEndpoint: async (_ws, id) => void stored.delete(id),
    pendingDeliveryIds: async (endpointId) => queued.get(endpointId) ?? [],
    async failPending(_ws, id, reason) {
      failed.push({ id, reason });
      return undefined;
    },
    deleteEndpointDeliveries: async (_ws, endpointId) => (deleted.push(endpointId), 0),
    listDeliveries: async () => empty,
  };
  const cipher = fakeCipher();
  const checkUrl = async (url: string) => {
    checked.push(url);
    return refused.includes(url) ? { ok: false as const, reason: 'resolves to a private address' } : { ok: true as const };
  };
  const clock = fakeClock(T0 + 60_000);
  const service = makeWebhookService({ store, cipher, clock, checkUrl });
  return { service, stored, failed, updates, rotations, deleted, checked, cipher, clock, caller: principal({ workspaceId: 'ws_test' }) };
}

describe('webhook service: register', () => {
  it('a url the SSRF guard refuses is VALIDATION_ERROR naming the reason; nothing is sealed or stored', async () => {
    const h = harness([], ['https://10.0.0.1/in']);
    const error = await caught(() => h.service.register(h.caller, { url: 'https://10.0.0.1/in', events: ['service.secret.create'] }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('url: resolves to a private address');
    expect(h.stored.size).toBe(0);
    expect(h.cipher.encrypted).toEqual([]);
  });

  it('the full signing secret is in the register answer only: sealed under its endpoint, shown elsewhere as a hint', async () => {
    // Prepare
    const h = harness();
    // Act
    const registered = await h.service.register(h.caller, {
      url: 'https://hooks.example.com/in',
      events: ['service.secret.create', 'service.secret.create'],
    });
    const listed = await h.service.list(h.caller, { limit: 10 });
    // Assess
    expect(registered.secret).toMatch(/^whsec_/);
    expect(registered.secretHint).toBe(`whsec_…${registered.secret.slice(-4)}`);
    expect(registered.events).toEqual(['service.secret.create']);
    expect(h.cipher.encrypted).toEqual([{ workspaceId: 'ws_test', endpointId: registered.id }]);
    // The answer schemas (issue 12) are what keep the sealed secret out of every answer.
    expect(z.parse(webhookEndpointCreated(), registered)).not.toHaveProperty('sealedSecret');
    expect(z.parse(webhookEndpointAnswer(), listed.items[0])).not.toHaveProperty('sealedSecret');
    expect(listed.items[0]).not.toHaveProperty('secret');
  });
});

describe('webhook service: update', () => {
  it('pausing fails the queued deliveries and marks the endpoint paused, conditional on the version read', async () => {
    // Prepare
    const h = harness([endpoint()]);
    // Act
    const paused = await h.service.update(h.caller, 'we_01', { enabled: false });
    // Assess
    expect(paused).toMatchObject({ enabled: false, disabledAt: iso(T0 + 60_000), disabledReason: 'paused' });
    expect(h.failed).toEqual([
      { id: 'whd_01', reason: 'endpoint paused' },
      { id: 'whd_02', reason: 'endpoint paused' },
    ]);
    expect(h.updates[0]).toMatchObject({ readUpdatedAt: iso(T0), resetStreak: false });
    expect(h.updates[0]!.audit).toMatchObject({ action: 'webhook_endpoint.update', metadata: { changed: ['enabled'], enabled: false } });
  });

  it('pausing an endpoint that is already off touches no delivery and keeps why it went off', async () => {
    const off = endpoint({ enabled: false, disabledAt: iso(T0), disabledReason: '20 failed attempts in a row', consecutiveFailures: 20 });
    const h = harness([off]);
    const answer = await h.service.update(h.caller, 'we_01', { enabled: false });
    expect(h.failed).toEqual([]);
    expect(answer).toMatchObject({ disabledAt: iso(T0), disabledReason: '20 failed attempts in a row', consecutiveFailures: 20 });
  });

  it('enabling an endpoint that was off clears its failure streak; enabling an enabled one does not', async () => {
    const h = harness([
      endpoint({ enabled: false, disabledReason: 'switched off', disabledAt: iso(T0), consecutiveFailures: 20, failingSince: iso(T0) }),
      endpoint({ id: 'we_02', consecutiveFailures: 4, failingSince: iso(T0) }),
    ]);
    const reenabled = await h.service.update(h.caller, 'we_01', { enabled: true });
    const unchanged = await h.service.update(h.caller, 'we_02', { enabled: true });
    expect(reenabled).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null });
    expect(unchanged).toMatchObject({ consecutiveFailures: 4, failingSince: iso(T0) });
    expect(h.updates.map((u) => u.resetStreak)).toEqual([true, false]);
  });

  it('the url is checked only when it changes, and a refused new url writes nothing', async () => {
    const h = harness([endpoint()], ['https://169.254.169.254/']);
    await h.service.update(h.caller, 'we_01', { url: 'https://hooks.example.com/in', description: 'same url' });
    const error = await caught(() => h.service.update(h.caller, 'we_01', { url: 'https://169.254.169.254/' }));
    expect(h.checked).toEqual(['https://169.254.169.254/']);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(h.updates).toHaveLength(1);
  });

  it('an endpoint the workspace does not have is NOT_FOUND for update and delete', async () => {
    const h = harness();
    expect((await caught(() => h.service.update(h.caller, 'we_01', { enabled: false }))).code).toBe('NOT_FOUND');
    expect((await caught(() => h.service.delete(h.caller, 'we_01'))).code).toBe('NOT_FOUND');
  });
});

describe('webhook service: delete', () => {
  it('deletes the endpoint and its delivery log', async () => {
    const h = harness([endpoint()]);
    expect(await h.service.delete(h.caller, 'we_01')).toEqual({ id: 'we_01', deleted: true });
    expect(h.stored.has('we_01')).toBe(false);
    expect(h.deleted).toEqual(['we_01']);
  });
});

describe('webhook service: rotateSecret', () => {
  const NOW = T0 + 60_000;

  it('answers a new secret once, keeps the old one sealed as previous until the overlap ends, and audits neither', async () => {
    // Prepare
    const h = harness([endpoint()]);
    const old = structuredClone(h.stored.get('we_01')!);
    // Act
    const rotated = await h.service.rotateSecret(h.caller, 'we_01', 24);
    // Assess
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secretHint).toBe(`whsec_…${rotated.secret.slice(-4)}`);
    expect(rotated).toMatchObject({ updatedAt: iso(NOW), previousSecretExpiresAt: iso(NOW + 24 * HOUR) });
    expect(h.cipher.encrypted).toEqual([{ workspaceId: 'ws_test', endpointId: 'we_01' }]);
    const [write] = h.rotations;
    expect(write!.read).toEqual({ updatedAt: old.updatedAt, secret: old.sealedSecret });
    expect(write!.endpoint.previousSealedSecret).toEqual(old.sealedSecret);
    expect(write!.endpoint.sealedSecret).not.toEqual(old.sealedSecret);
    expect(write!.audit).toMatchObject({
      action: 'webhook_endpoint.secret_rotate',
      target: 'we_01',
      metadata: { expireCurrentInHours: 24, previousSecretExpiresAt: iso(NOW + 24 * HOUR) },
    });
    const entry = JSON.stringify(write!.audit);
    for (const material of [rotated.secret, rotated.secretHint, old.secretHint, rotated.secret.slice(-4)])
      expect(entry).not.toContain(material);
    const answered = z.parse(webhookEndpointCreated(), rotated);
    expect(answered).not.toHaveProperty('sealedSecret');
    expect(answered).not.toHaveProperty('previousSealedSecret');
  });

  it('with 0 hours keeps no previous secret', async () => {
    const h = harness([endpoint()]);
    const rotated = await h.service.rotateSecret(h.caller, 'we_01', 0);
    expect(rotated.previousSecretExpiresAt).toBeNull();
    expect(h.rotations[0]!.endpoint.previousSealedSecret).toBeUndefined();
    expect(h.rotations[0]!.audit.metadata).toMatchObject({ expireCurrentInHours: 0, previousSecretExpiresAt: null });
  });

  it('rotating again ends the first secret at once: the previous is the second, never the first', async () => {
    const h = harness([endpoint()]);
    const first = h.stored.get('we_01')!.sealedSecret;
    await h.service.rotateSecret(h.caller, 'we_01', 48);
    const second = h.stored.get('we_01')!.sealedSecret;
    await h.service.rotateSecret(h.caller, 'we_01', 24);
    const kept = h.stored.get('we_01')!;
    expect(kept.previousSealedSecret).toEqual(second);
    expect([kept.sealedSecret, kept.previousSealedSecret]).not.toContainEqual(first);
  });

  it('rotates a paused endpoint; an endpoint the workspace does not have is NOT_FOUND and nothing is sealed', async () => {
    const h = harness([endpoint({ enabled: false, disabledAt: iso(T0), disabledReason: 'paused' })]);
    expect((await h.service.rotateSecret(h.caller, 'we_01', 1)).enabled).toBe(false);
    const other = harness([endpoint()]);
    const error = await caught(() => other.service.rotateSecret(other.caller, 'we_02', 24));
    expect(error.code).toBe('NOT_FOUND');
    expect(other.cipher.encrypted).toEqual([]);
  });

  it("reads show the previous secret's expiry until it passes, then null", async () => {
    const h = harness([endpoint()]);
    await h.service.rotateSecret(h.caller, 'we_01', 1);
    expect((await h.service.list(h.caller, { limit: 10 })).items[0]!.previousSecretExpiresAt).toBe(iso(NOW + HOUR));
    h.clock.advance(HOUR);
    const listed = (await h.service.list(h.caller, { limit: 10 })).items[0]!;
    expect(listed.previousSecretExpiresAt).toBeNull();
    expect(z.parse(webhookEndpointAnswer(), listed)).toMatchObject({ previousSecretExpiresAt: null });
    expect(await h.service.update(h.caller, 'we_01', { description: 'x' })).toMatchObject({ previousSecretExpiresAt: null });
  });
});

describe('webhook service: get', () => {
  it("answers the endpoint as the list does (the previous secret's expiry included); an unknown one is NOT_FOUND", async () => {
    const h = harness([endpoint()]);
    await h.service.rotateSecret(h.caller, 'we_01', 1);
    expect(await h.service.get(h.caller, 'we_01')).toEqual((await h.service.list(h.caller, { limit: 10 })).items[0]);
    h.clock.advance(HOUR);
    expect(await h.service.get(h.caller, 'we_01')).toMatchObject({ previousSecretExpiresAt: null });
    expect((await caught(() => h.service.get(h.caller, 'we_missing'))).code).toBe('NOT_FOUND');
  });
});
