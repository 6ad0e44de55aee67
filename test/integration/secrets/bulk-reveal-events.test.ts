import { afterAll, describe, expect, it } from 'vitest';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

describe('loading an environment: events', () => {
  const receivers: HttpsReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  it('makes one service.secret.reveal event per revealed secret: a 100-secret page is 100 deliveries, each once', async () => {
    // Prepare: 100 secrets, and an endpoint subscribed to reveals only
    const ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'burst', environment: 'prod' })).environment.id;
    for (let i = 0; i < 100; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          call('PUT', `/api/v1/environments/${envId}/secrets`, {
            token: ws.apiKey,
            body: { key: `BURST_${String(i + j).padStart(3, '0')}`, value: 'v' },
          }),
        ),
      );
    }
    const receiver = await startReceiver({ status: 204 });
    receivers.push(receiver);
    await registerEndpoint(ws.apiKey, `https://localhost:${receiver.port}/reveals`, ['service.secret.reveal']);
    // Act
    const page = await call('POST', `/api/v1/environments/${envId}/secrets/reveal`, { token: ws.apiKey });
    // Assess
    expect(page.body.data).toHaveLength(100);
    await waitFor(async () => receiver.requests.length >= 100 || undefined, 60_000, '100 reveal deliveries');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = receiver.requests.map((request) => JSON.parse(request.body) as { type: string; data: { secretId: string } });
    expect(events).toHaveLength(100);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['service.secret.reveal']));
    expect(new Set(events.map((event) => event.data.secretId))).toEqual(new Set(page.body.data.map((s: { id: string }) => s.id)));
  });
});
