import { describe, expect, it } from 'vitest';
import { openConnectionPool } from '../../../../shared/net/connection-pool.ts';
import { sendWebhook } from '../../../../shared/webhooks/deliveries/sender.ts';
import type { LookupAll } from '../../../../shared/net/ssrf.ts';
import { closeServersAfterEach, receiver, request, resolvesTo } from './sender-support.ts';

closeServersAfterEach();

/** Polls until `probe` holds (sockets close asynchronously on the server side). */
async function eventually(probe: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!probe() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return probe();
}

describe("sendWebhook over one invocation's connection pool", () => {
  it('two attempts to one endpoint share one TLS connection, and closing the pool leaves no socket open', async () => {
    // Prepare
    const target = await receiver({ status: 204 });
    const connections = openConnectionPool();

    // Act
    const first = await sendWebhook(request(`${target.origin}/hook`, { connections }));
    const second = await sendWebhook(request(`${target.origin}/hook`, { connections }));
    const openBeforeClose = target.openConnections();
    connections.close();

    // Assess
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(target.requests).toHaveLength(2);
    expect(target.connections()).toBe(1);
    expect(connections.opened()).toBe(1);
    expect(openBeforeClose).toBe(1);
    expect(await eventually(() => target.openConnections() === 0)).toBe(true);
  });

  it('parallel attempts to a fast endpoint take turns on its one connection', async () => {
    const target = await receiver({ status: 204 });
    const connections = openConnectionPool();
    const results = await Promise.all(Array.from({ length: 5 }, () => sendWebhook(request(`${target.origin}/hook`, { connections }))));
    connections.close();
    expect(results.every((result) => result.ok)).toBe(true);
    expect(target.connections()).toBe(1);
  });

  it('attempts do not queue behind a slow answer: once it stalls they open connections of their own', async () => {
    // Prepare: the receiver takes 400 ms; the pool lets an answer hold the connection 50 ms before others stop waiting.
    const target = await receiver({ status: 204, delayMs: 400 });
    const connections = openConnectionPool({ stallMs: 50 });
    const started = performance.now();

    // Act
    const results = await Promise.all([1, 2, 3].map(() => sendWebhook(request(`${target.origin}/hook`, { connections }))));
    const elapsed = performance.now() - started;
    connections.close();

    // Assess: in parallel (not 3 × 400 ms), on three connections, none timed out.
    expect(results.every((result) => result.ok)).toBe(true);
    expect(elapsed).toBeLessThan(1000);
    expect(target.connections()).toBe(3);
  });

  it('an attempt arriving after the holder stalled does not wait for it: it gets a connection of its own at once', async () => {
    // Prepare: one holder that keeps the shared connection past its allowance
    const pool = openConnectionPool({ stallMs: 20 });
    const holder = await pool.lease('203.0.113.9:443:example.com');
    await new Promise((resolve) => setTimeout(resolve, 60));
    // Act
    const late = await pool.lease('203.0.113.9:443:example.com');
    // Assess: another agent than the holder's, no wait; once the holder leaves, the line is back to normal
    expect(late.agent).not.toBe(holder.agent);
    expect(late.waitedMs).toBeLessThan(20);
    holder.release();
    const next = await pool.lease('203.0.113.9:443:example.com');
    expect(next.agent).toBe(holder.agent);
    next.release();
    pool.close();
  });

  it("the wait for a pooled connection does not count against the receiver's deadline", async () => {
    // Prepare: 300 ms answers, a 400 ms deadline; the second attempt waits for the first one's connection.
    const target = await receiver({ status: 204, delayMs: 300 });
    const connections = openConnectionPool({ stallMs: 1000 });

    // Act
    const results = await Promise.all([1, 2].map(() => sendWebhook(request(`${target.origin}/hook`, { connections, timeoutMs: 400 }))));
    connections.close();

    // Assess
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    expect(target.connections()).toBe(1);
  });

  it('without a pool every attempt opens and closes its own connection (as before)', async () => {
    const target = await receiver({ status: 204 });
    await sendWebhook(request(`${target.origin}/hook`));
    await sendWebhook(request(`${target.origin}/hook`));
    expect(target.connections()).toBe(2);
    expect(await eventually(() => target.openConnections() === 0)).toBe(true);
  });

  it('a pooled connection is never used once the fresh DNS check of an attempt blocks its address', async () => {
    // Prepare: the name first resolves to the receiver (allowed), then to the cloud metadata address.
    const target = await receiver({ status: 204 });
    const connections = openConnectionPool();
    let answers = 0;
    const lookup: LookupAll = async (host) => (answers++ === 0 ? resolvesTo('127.0.0.1')(host) : resolvesTo('169.254.169.254')(host));
    const url = `https://rebind.test:${target.port}/hook`;

    // Act
    const first = await sendWebhook(request(url, { connections, lookup }));
    const second = await sendWebhook(request(url, { connections, lookup }));
    connections.close();

    // Assess: the second attempt is blocked before any request, though an open connection to the first address idled.
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({
      ok: false,
      statusCode: null,
      error: expect.stringMatching(/^blocked: rebind.test resolves to 169.254.169.254/),
    });
    expect(target.requests).toHaveLength(1);
  });

  it('an answer cut at the size limit drops its connection instead of returning it to the pool', async () => {
    const target = await receiver({ status: 200, body: 'x'.repeat(64 * 1024) });
    const connections = openConnectionPool();
    await sendWebhook(request(`${target.origin}/hook`, { connections, maxResponseBytes: 1024 }));
    await sendWebhook(request(`${target.origin}/hook`, { connections, maxResponseBytes: 1024 }));
    connections.close();
    expect(target.connections()).toBe(2);
    expect(await eventually(() => target.openConnections() === 0)).toBe(true);
  });

  it('a different checked address or TLS name gets its own connection', async () => {
    const target = await receiver({ status: 204 });
    const connections = openConnectionPool();
    await sendWebhook(request(`${target.origin}/a`, { connections }));
    await sendWebhook(request(`https://receiver.test:${target.port}/b`, { connections, lookup: resolvesTo('127.0.0.1') }));
    await sendWebhook(request(`${target.origin}/c`, { connections }));
    connections.close();
    expect(target.requests.map((r) => r.servername)).toEqual([undefined, 'receiver.test', undefined]);
    expect(target.connections()).toBe(2);
  });
});
