import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { registerEndpoint, startReceiver } from '../../support/webhooks.ts';
import { makeWebhookService } from '../../../shared/webhooks/endpoints/webhook-service.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';

describe('webhook endpoints', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    ws = await newWorkspace();
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('keeps user info refused, and a query string out of the audit log while delivery keeps it', async () => {
    // Prepare
    const withUser = `${receiver.origin.replace('https://', 'https://user:pw@')}/path?token=abc`;
    const withToken = `${receiver.origin}/path?token=abc&x=1#frag`;
    // Act
    const refused = await call('POST', '/api/v1/webhooks', {
      token: ws.apiKey,
      body: { url: withUser, events: ['service.secret.create'] },
    });
    const created = await call('POST', '/api/v1/webhooks', {
      token: ws.apiKey,
      body: { url: withToken, events: ['service.secret.create'] },
    });
    const id = created.body.data.id;
    await call('PATCH', `/api/v1/webhooks/${id}`, { token: ws.apiKey, body: { enabled: false } });
    await call('DELETE', `/api/v1/webhooks/${id}`, { token: ws.apiKey });
    const audit = await call('GET', `/api/v1/audit?target=${id}`, { token: ws.apiKey });
    const everything = await call('GET', '/api/v1/audit?limit=200', { token: ws.apiKey });
    // Assess
    expect(refused.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'url: must not contain a username or password' });
    expect(created.body.data.url).toBe(withToken);
    expect(audit.body.data.map((e: { action: string; metadata: { url: string } }) => [e.action, e.metadata.url])).toEqual([
      ['webhook_endpoint.delete', `${receiver.origin}/path?…#…`],
      ['webhook_endpoint.update', `${receiver.origin}/path?…#…`],
      ['webhook_endpoint.create', `${receiver.origin}/path?…#…`],
    ]);
    expect(JSON.stringify(everything.body)).not.toMatch(/pw|token=abc/);
  });

  it('registers with the full secret once, then shows only the hint; PATCH never changes the secret', async () => {
    const created = await call('POST', '/api/v1/webhooks', {
      token: ws.apiKey,
      body: { url: `${receiver.origin}/hooks`, events: ['service.secret.create'], description: 'CI hook' },
    });
    expect(created.status).toBe(201);
    const endpoint = created.body.data;
    expect(endpoint).toMatchObject({
      id: expect.stringMatching(/^we_/),
      url: `${receiver.origin}/hooks`,
      events: ['service.secret.create'],
      description: 'CI hook',
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    expect(endpoint.secretHint).toBe(`whsec_…${endpoint.secret.slice(-4)}`);
    const list = await call('GET', '/api/v1/webhooks', { token: ws.apiKey });
    expect(list.body.data[0]).toMatchObject({ id: endpoint.id, secretHint: endpoint.secretHint });
    expect(JSON.stringify(list.body)).not.toContain(endpoint.secret);
    expect(list.body.data[0]).not.toHaveProperty('secret');
    // Exactly the record's fields: never the sealed signing secret or internal attributes.
    for (const answer of [created.body.data, list.body.data[0]]) {
      expect(
        Object.keys(answer)
          .filter((k) => k !== 'secret')
          .sort(),
      ).toEqual([
        'consecutiveFailures',
        'createdAt',
        'description',
        'disabledAt',
        'disabledReason',
        'enabled',
        'events',
        'failingSince',
        'id',
        'previousSecretExpiresAt',
        'secretHint',
        'updatedAt',
        'url',
      ]);
    }
    const patched = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, {
      token: ws.apiKey,
      body: { url: `${receiver.origin}/v2`, events: ['service.secret.rotate', 'service.secret.reveal'], description: null },
    });
    expect(patched.body.data).not.toHaveProperty('sealedSecret');
    expect(patched.body.data).toMatchObject({
      url: `${receiver.origin}/v2`,
      events: ['service.secret.rotate', 'service.secret.reveal'],
      description: null,
      secretHint: endpoint.secretHint,
    });
    expect(JSON.stringify(await localStore().store.getEndpoint(ws.workspaceId, endpoint.id))).not.toContain(endpoint.secret);
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: endpoint.id });
    expect(audit.items.map((e) => e.action)).toEqual(['webhook_endpoint.update', 'webhook_endpoint.create']);
    const deleted = await call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey });
    expect(deleted.body.data).toEqual({ id: endpoint.id, deleted: true });
    expect((await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } })).status).toBe(404);
    expect((await localStore().store.listAudit(ws.workspaceId, { limit: 1 }, { target: endpoint.id })).items[0]!.action).toBe(
      'webhook_endpoint.delete',
    );
  });

  it('refuses, with CONFLICT, a change made from a stale read instead of undoing what happened in between', async () => {
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/stale`);
    const { store } = localStore();
    const stale = await store.getEndpoint(ws.workspaceId, endpoint.id);
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    const workspace = await store.getWorkspace(ws.workspaceId);
    const service = makeWebhookService({
      store: { ...store, getEndpoint: async () => stale },
      cipher: { encrypt: async () => Promise.reject(new Error('unused')), decrypt: async () => Promise.reject(new Error('unused')) },
      clock: { now: () => Date.now() + 1000 },
      checkUrl: async () => ({ ok: true }),
    });
    const principal = {
      workspaceId: ws.workspaceId,
      accountId: workspace!.accountId,
      kind: 'api_key' as const,
      actorSub: ws.apiKeyId,
      credentialId: ws.apiKeyId,
      authority: API_KEY_AUTHORITY,
    };
    await expect(service.update(principal, endpoint.id, { description: 'late edit' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.getEndpoint(ws.workspaceId, endpoint.id))?.enabled).toBe(false);
  });

  it('lists the ten event types', async () => {
    const answer = await call('GET', '/api/v1/webhooks/event-types', { token: ws.apiKey });
    expect(answer.body.data.map((e: { type: string }) => e.type)).toEqual([
      'service.secret.create',
      'service.secret.rotate',
      'service.secret.reveal',
      'service.secret.delete',
      'service.secret.rotation_failed',
      'service.change_request.opened',
      'service.change_request.approved',
      'service.change_request.merged',
      'service.change_request.closed',
      'service.sync.failed',
      'service.sync.recovered',
      'service.webhook_endpoint.disabled',
    ]);
  });

  it('validates url, events and description at their limits', async () => {
    const post = (body: unknown) => call('POST', '/api/v1/webhooks', { token: ws.apiKey, body });
    const base = `${receiver.origin}/`;
    const events = ['service.secret.create'];
    expect((await post({ url: base + 'a'.repeat(2048 - base.length), events })).status).toBe(201);
    expect((await post({ url: base + 'a'.repeat(2049 - base.length), events })).body.error.message).toBe(
      'url: must be at most 2048 characters',
    );
    expect((await post({ url: '', events })).body.error.message).toBe('url: must be at least 1 character');
    expect((await post({ url: 'x', events })).body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'url: is not a valid URL' });
    expect((await post({ url: `http://127.0.0.1:${receiver.port}/`, events })).body.error.message).toBe('url: must use https');
    expect((await post({ url: 'https://10.1.2.3/', events })).body.error.message).toMatch(
      /^url: points to a blocked address: 10\.1\.2\.3 \(private\)/,
    );
    expect((await post({ url: 'https://169.254.169.254/latest/meta-data', events })).body.error.message).toMatch(/link-local/);
    expect((await post({ url: 'https://no-such-host.invalid/', events })).body.error.message).toMatch(
      /^url: host no-such-host\.invalid does not resolve/,
    );
    expect((await post({ url: base, events: [] })).body.error.message).toBe('events: must be at least 1 item');
    expect((await post({ url: base, events: ['secret.create'] })).body.error.message).toMatch(/^events\.0: must be one of/);
    expect((await post({ url: base, events, description: 'd'.repeat(280) })).status).toBe(201);
    expect((await post({ url: base, events, description: 'd'.repeat(281) })).body.error.message).toBe(
      'description: must be at most 280 characters',
    );
    expect((await post({ url: base, events, secret: 'mine' })).body.error.message).toBe('secret: is not a known field');
    const someId = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data[0].id;
    expect((await call('PATCH', `/api/v1/webhooks/${someId}`, { token: ws.apiKey, body: {} })).body.error.message).toBe(
      'body: must change at least one of url, events, description, enabled',
    );
    expect((await call('PATCH', `/api/v1/webhooks/${someId}`, { token: ws.apiKey, body: { url: 'https://192.168.0.1/' } })).status).toBe(
      400,
    );
  });

  it('caps a workspace at 20 endpoints with LIMIT_EXCEEDED, and a delete frees a place', async () => {
    const fresh = await newWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await registerEndpoint(fresh.apiKey, `${receiver.origin}/${i}`)).id);
    const over = await call('POST', '/api/v1/webhooks', {
      token: fresh.apiKey,
      body: { url: `${receiver.origin}/21`, events: ['service.secret.create'] },
    });
    expect(over.status).toBe(409);
    expect(over.body.error).toEqual({ code: 'LIMIT_EXCEEDED', message: 'webhooks: a workspace has at most 20 endpoints' });
    const page = await call('GET', '/api/v1/webhooks?limit=15', { token: fresh.apiKey });
    expect(page.body.data).toHaveLength(15);
    expect(page.body.meta.page.hasMore).toBe(true);
    await call('DELETE', `/api/v1/webhooks/${ids[0]}`, { token: fresh.apiKey });
    expect(
      (
        await call('POST', '/api/v1/webhooks', {
          token: fresh.apiKey,
          body: { url: `${receiver.origin}/again`, events: ['service.secret.create'] },
        })
      ).status,
    ).toBe(201);
  });

  it("answers NOT_FOUND for another workspace's endpoints and deliveries, and lets people but not machines in", async () => {
    const other = await newWorkspace();
    const theirs = await registerEndpoint(other.apiKey, `${receiver.origin}/theirs`);
    expect((await call('PATCH', `/api/v1/webhooks/${theirs.id}`, { token: ws.apiKey, body: { enabled: false } })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/webhooks/${theirs.id}`, { token: ws.apiKey })).status).toBe(404);
    expect((await call('GET', `/api/v1/webhooks/${theirs.id}/deliveries`, { token: ws.apiKey })).status).toBe(404);
    const foreign = await call('GET', `/api/v1/webhook-deliveries?endpointId=${theirs.id}&limit=1`, { token: ws.apiKey });
    const missing = await call('GET', '/api/v1/webhook-deliveries?endpointId=we_01JZZZZZZZZZZZZZZZZZZZZZZZ&limit=1', { token: ws.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe(missing.body.error.code);
    expect((await call('GET', '/api/v1/webhook-deliveries/whd_01JZZZZZZZZZZZZZZZZZZZZZZZ', { token: ws.apiKey })).status).toBe(404);
    expect((await call('POST', '/api/v1/webhook-deliveries/whd_01JZZZZZZZZZZZZZZZZZZZZZZZ/retry', { token: ws.apiKey })).status).toBe(404);
    const user = await userToken({ sub: 'usr_01JFFFFFFFFFFFFFFFFFFFFFFF', workspace_id: ws.workspaceId, roles: ['admin'] });
    expect((await call('GET', '/api/v1/webhooks', { token: user })).status).toBe(200);
    const machine = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'bot' } })).body.data.token;
    for (const [method, path] of [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks'],
      ['GET', '/api/v1/webhooks/event-types'],
      ['GET', '/api/v1/webhook-deliveries'],
    ] as const) {
      expect(
        (
          await call(method, path, {
            token: machine,
            body: method === 'POST' ? { url: receiver.origin, events: ['service.secret.create'] } : undefined,
          })
        ).body.error.code,
      ).toBe('FORBIDDEN');
    }
  });
});
