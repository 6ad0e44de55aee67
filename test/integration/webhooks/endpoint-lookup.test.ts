import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { call, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { registerEndpoint, startReceiver } from '../../support/webhooks.ts';

/**
 * `GET /api/v1/webhooks/{id}` (decisions.md, "Lookups by id"): the list's object (the signing secret's hint, never the
 * secret); the list route's rules: machine tokens are FORBIDDEN; another workspace's endpoint or an unknown id is
 * NOT_FOUND.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
let receiver: HttpsReceiver;
let endpoint: Awaited<ReturnType<typeof registerEndpoint>>;
let machineToken: string;

const lookup = (id: string, token: string) => call('GET', `/api/v1/webhooks/${id}`, { token });
const listItem = async (id: string) =>
  (await call('GET', '/api/v1/webhooks?limit=200', { token: ws.apiKey })).body.data.find((item: { id: string }) => item.id === id);

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace(), newWorkspace()]);
  receiver = await startReceiver();
  // Subscribed only to an event nothing here fires: no delivery changes the endpoint while the test reads it.
  endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/lookup`, ['service.webhook_endpoint.disabled']);
  const key = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'machine' } });
  machineToken = key.body.data.token;
});
afterAll(() => receiver.close());

describe('GET /api/v1/webhooks/{id}', () => {
  it('answers the same object as the list item: the hint, never the signing secret', async () => {
    // Act
    const found = await lookup(endpoint.id, ws.apiKey);
    // Assess
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual(await listItem(endpoint.id));
    expect(JSON.stringify(found.body)).not.toContain(endpoint.secret);
  });

  it('follows a change and a rotation as the list does (the previous secret expiry included)', async () => {
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { description: 'paused', enabled: false } });
    await call('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token: ws.apiKey, body: { expireCurrentInHours: 1 } });
    const found = await lookup(endpoint.id, ws.apiKey);
    expect(found.body.data).toMatchObject({ description: 'paused', enabled: false, previousSecretExpiresAt: expect.any(String) });
    expect(found.body.data).toEqual(await listItem(endpoint.id));
  });

  it("is NOT_FOUND for another workspace's endpoint and for an unknown id", async () => {
    expect((await lookup(endpoint.id, other.apiKey)).body.error.code).toBe('NOT_FOUND');
    expect((await lookup(newId('webhookEndpoint'), ws.apiKey)).body.error.code).toBe('NOT_FOUND');
  });

  it('is FORBIDDEN to a machine token, as the list is', async () => {
    const [one, list] = await Promise.all([lookup(endpoint.id, machineToken), call('GET', '/api/v1/webhooks', { token: machineToken })]);
    expect([one.status, one.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    expect([list.status, list.body.error?.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('leaves the event-types route to itself', async () => {
    const types = await call('GET', '/api/v1/webhooks/event-types', { token: ws.apiKey });
    expect(types.status).toBe(200);
    expect(types.body.data.length).toBeGreaterThan(0);
  });
});
