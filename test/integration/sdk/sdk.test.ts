import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiError, createClient } from '@secrets-service/sdk';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('SDK against the local stack', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'sdk', environment: 'prod' })).environment.id;
    for (let i = 0; i < 130; i += 26) {
      await Promise.all(
        Array.from({ length: 26 }, (_, j) =>
          call('PUT', `/api/v1/environments/${envId}/secrets`, {
            token: ws.apiKey,
            body: { key: `SDK_${String(i + j).padStart(3, '0')}`, value: `v${i + j}` },
          }),
        ),
      );
    }
  });

  it('loadEnvironment answers every secret as {KEY: value}, following the pages (130 secrets)', async () => {
    const client = createClient({ baseUrl: inject('stack').baseUrl, token: ws.apiKey });
    const values = await client.loadEnvironment({ project: 'sdk', environment: 'prod' });
    expect(Object.keys(values)).toHaveLength(130);
    expect(values.SDK_129).toBe('v129');
    expect(await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_001', 'NOPE'] })).toEqual({ SDK_001: 'v1' });
  });

  it('caches for cacheTtlSeconds, serves the last good answer when a refresh fails with a network error, a 429 or a 5xx, never on 401/403/404', async () => {
    // Prepare: a fetch that can be made to fail, and a clock the test moves
    let mode: 'ok' | 'down' | '503' | '429' = 'ok';
    let now = 1_000_000;
    let fetches = 0;
    const fetcher: typeof fetch = async (input, init) => {
      fetches++;
      if (mode === 'down') throw new TypeError('fetch failed');
      if (mode === '503')
        return new Response(JSON.stringify({ data: null, error: { code: 'SERVICE_UNAVAILABLE', message: 'down' }, meta: {} }), {
          status: 503,
        });
      if (mode === '429')
        return new Response(JSON.stringify({ data: null, error: { code: 'RATE_LIMITED', message: 'slow down' }, meta: {} }), {
          status: 429,
        });
      return fetch(input, init);
    };
    const client = createClient({
      baseUrl: inject('stack').baseUrl,
      token: ws.apiKey,
      fetch: fetcher,
      now: () => now,
      maxRetries: 0,
      cacheTtlSeconds: 60,
    });
    const first = await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_002'] });
    // Act / Assess: inside the TTL nothing is fetched
    const before = fetches;
    expect(await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_002'] })).toEqual(first);
    expect(fetches).toBe(before);
    now += 61_000;
    mode = 'down';
    expect(await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_002'] })).toEqual(first);
    mode = '503';
    expect(await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_002'], forceFetch: true })).toEqual(first);
    mode = '429';
    expect(await client.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_002'], forceFetch: true })).toEqual(first);
    mode = 'ok';
    // Another last character (an API key ending in X would otherwise stay itself, one run in 64).
    const altered = `${ws.apiKey.slice(0, -1)}${ws.apiKey.endsWith('X') ? 'Y' : 'X'}`;
    const revoked = createClient({ baseUrl: inject('stack').baseUrl, token: altered, now: () => now });
    await expect(revoked.loadEnvironment({ project: 'sdk', environment: 'prod' })).rejects.toMatchObject({
      status: 401,
      code: 'AUTH_REQUIRED',
    });
    await expect(client.loadEnvironment({ project: 'sdk', environment: 'nope' })).rejects.toBeInstanceOf(ApiError);
  });

  it('refuses an http:// base URL that is not loopback at createClient, and talks to the stack over http://localhost', async () => {
    // Prepare
    const viaLocalhost = new URL(inject('stack').baseUrl);
    viaLocalhost.hostname = 'localhost';
    // Act
    const refuse = () => createClient({ baseUrl: 'http://example.com', token: ws.apiKey });
    const local = createClient({ baseUrl: viaLocalhost.origin, token: ws.apiKey });
    // Assess
    expect(refuse).toThrow(TypeError);
    expect(refuse).toThrow(
      'refused base URL http://example.com: the base URL must use https:// (http:// is allowed only to a loopback host: 127.0.0.0/8, [::1] or localhost)',
    );
    expect(await local.loadEnvironment({ project: 'sdk', environment: 'prod', keys: ['SDK_001'] })).toEqual({ SDK_001: 'v1' });
  });

  it('retries a 503 with the same Idempotency-Key, so the write happens once', async () => {
    // Prepare: a stub that answers 503 first, then the real API; it records each attempt's key
    const keys: (string | undefined)[] = [];
    let attempts = 0;
    const stub = createServer(async (request, response) => {
      attempts++;
      keys.push(request.headers['idempotency-key'] as string | undefined);
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (attempts === 1) {
        response
          .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
          .end(JSON.stringify({ data: null, error: { code: 'SERVICE_UNAVAILABLE', message: 'x' }, meta: {} }));
        return;
      }
      const real = await fetch(`${inject('stack').baseUrl}${request.url}`, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      response.writeHead(real.status, { 'content-type': 'application/json' }).end(await real.text());
    });
    stub.listen(0, '127.0.0.1');
    await once(stub, 'listening');
    try {
      const client = createClient({ baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`, token: ws.apiKey });
      // Act
      const written = await client.api.PUT('/api/v1/environments/{envId}/secrets', {
        params: { path: { envId } },
        body: { key: 'RETRIED', value: 'once' },
      });
      // Assess
      expect(written.data?.data.version).toBe(1);
      expect(attempts).toBe(2);
      expect(keys[0]).toBeDefined();
      expect(keys[1]).toBe(keys[0]);
    } finally {
      stub.close();
    }
  });
});
