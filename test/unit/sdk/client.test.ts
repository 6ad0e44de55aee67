import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../../../sdk/src/client.ts';

const answer = (status: number, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ data: null, error: { code: status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE', message: 'x' }, meta: {} }),
    { status, headers },
  );

describe('the SDK client retries', () => {
  it('gives a Retry-After longer than a minute back to the caller instead of sleeping through it', async () => {
    // Prepare
    let calls = 0;
    const client = createClient({
      baseUrl: 'https://api.test',
      token: 't',
      fetch: async () => (calls++, answer(429, { 'retry-after': '61' })),
    });
    // Act
    const result = await client.api.GET('/api/v1/projects');
    // Assess
    expect([result.response.status, calls]).toEqual([429, 1]);
  });

  it('waits out a Retry-After of up to a minute, with the same Idempotency-Key on each attempt of a write', async () => {
    // Prepare
    const keys: (string | null)[] = [];
    const client = createClient({
      baseUrl: 'https://api.test',
      token: 't',
      fetch: async (input) => {
        keys.push((input as Request).headers.get('idempotency-key'));
        return keys.length === 1
          ? answer(503, { 'retry-after': '0.01' })
          : new Response(JSON.stringify({ data: { id: 'proj_1' }, error: null, meta: {} }), { status: 201 });
      },
    });
    // Act
    const result = await client.api.POST('/api/v1/projects', { body: { name: 'p' } });
    // Assess
    expect(result.response.status).toBe(201);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it("waits out a write's 409 that names a Retry-After (its key's first request still running), with the same key", async () => {
    // Prepare
    const keys: (string | null)[] = [];
    const inUse = () =>
      new Response(JSON.stringify({ data: null, error: { code: 'CONFLICT', message: 'still running' }, meta: {} }), {
        status: 409,
        headers: { 'retry-after': '0.01' },
      });
    const client = createClient({
      baseUrl: 'https://api.test',
      token: 't',
      fetch: async (input) => {
        keys.push((input as Request).headers.get('idempotency-key'));
        return keys.length < 3 ? inUse() : new Response(JSON.stringify({ data: { id: 'proj_1' }, error: null, meta: {} }), { status: 201 });
      },
    });
    // Act
    const result = await client.api.POST('/api/v1/projects', { body: { name: 'p' } });
    // Assess
    expect(result.response.status).toBe(201);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it("asks again for a write whose key is in use well before the lease's Retry-After ends: 0.5 s, then 1 s", async () => {
    // Prepare: the first request holds the key's 60-second lease for two more asks
    vi.useFakeTimers();
    let calls = 0;
    const inUse = () =>
      new Response(JSON.stringify({ data: null, error: { code: 'CONFLICT', message: 'still running' }, meta: {} }), {
        status: 409,
        headers: { 'retry-after': '58' },
      });
    const client = createClient({
      baseUrl: 'https://api.test',
      token: 't',
      fetch: async () =>
        ++calls < 3 ? inUse() : new Response(JSON.stringify({ data: { id: 'proj_1' }, error: null, meta: {} }), { status: 201 }),
    });
    try {
      // Act
      const result = client.api.POST('/api/v1/projects', { body: { name: 'p' } });
      await vi.advanceTimersByTimeAsync(499);
      const beforeHalfSecond = calls;
      await vi.advanceTimersByTimeAsync(1 + 1_000);
      // Assess
      expect([beforeHalfSecond, calls, (await result).response.status]).toEqual([1, 3, 201]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives any other 409 to the caller at once: a conflict without Retry-After, or one on a request without a key', async () => {
    // Prepare
    let calls = 0;
    const conflict = (headers: Record<string, string>) => async () => (
      calls++,
      new Response(JSON.stringify({ data: null, error: { code: 'CONFLICT', message: 'slug taken' }, meta: {} }), { status: 409, headers })
    );
    const plain = createClient({ baseUrl: 'https://api.test', token: 't', fetch: conflict({}) });
    const keyless = createClient({ baseUrl: 'https://api.test', token: 't', fetch: conflict({ 'retry-after': '0.01' }) });
    // Act
    const taken = await plain.api.POST('/api/v1/projects', { body: { name: 'p' } });
    const read = await keyless.api.GET('/api/v1/projects');
    // Assess
    expect([taken.response.status, read.response.status, calls]).toEqual([409, 409, 2]);
  });

  it("stops at the caller's abort signal and does not retry it", async () => {
    // Prepare
    let calls = 0;
    const controller = new AbortController();
    const client = createClient({
      baseUrl: 'https://api.test',
      token: 't',
      fetch: (input) =>
        new Promise((_resolve, reject) => {
          calls++;
          const signal = (input as Request).signal;
          signal.addEventListener('abort', () => reject(signal.reason));
          controller.abort();
        }),
    });
    // Act / Assess
    await expect(client.api.GET('/api/v1/projects', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toBe(1);
  });
});
