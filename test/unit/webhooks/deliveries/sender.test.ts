import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../../shared/webhooks/deliveries/sender.ts';
import type { LookupAll } from '../../../../shared/net/ssrf.ts';
import { BODY, SIGNATURE, closeServersAfterEach, closedPort, plainTcpServer, receiver, request, resolvesTo } from './sender-support.ts';

closeServersAfterEach();

describe('sendWebhook answers', () => {
  it('succeeds on 200 and delivers the exact body and headers', async () => {
    // Prepare
    const target = await receiver({ status: 200, body: 'thanks' });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hooks/in?src=secrets`));

    // Assess
    expect(result).toEqual({ ok: true, statusCode: 200, durationMs: expect.any(Number), error: null, responseSnippet: 'thanks' });
    expect(target.requests).toHaveLength(1);
    const received = target.requests[0]!;
    expect(received).toMatchObject({ method: 'POST', path: '/hooks/in?src=secrets', body: BODY });
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'service-signature': SIGNATURE,
      'service-event-id': 'evt_01J',
      'service-delivery-attempt': '1',
      'content-length': String(Buffer.byteLength(BODY)),
      'user-agent': 'secrets-service-webhooks/1.0',
      host: `127.0.0.1:${target.port}`,
    });
  });

  it('fails on 500 with the status and a snippet of the answer', async () => {
    // Prepare
    const target = await receiver({ status: 500, body: 'boom\r\nstack trace' });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500', responseSnippet: 'boom stack trace' });
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    // Prepare
    const elsewhere = await receiver();
    const target = await receiver({ status: 302, headers: { Location: `${elsewhere.origin}/other` } });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`));

    // Assess
    expect(result).toMatchObject({
      ok: false,
      statusCode: 302,
      error: `redirect (302) to ${elsewhere.origin}/other not followed`,
    });
    expect(elsewhere.connections()).toBe(0);
  });

  it('reads no more of the answer than maxResponseBytes', async () => {
    // Prepare
    const target = await receiver({ status: 200, body: 'abcdefghijklmnopqrstuvwxyz' });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`, { maxResponseBytes: 10 }));

    // Assess
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseSnippet: 'abcdefghij' });
  });

  it('stops reading an endless answer at the cap instead of waiting for its end', async () => {
    // Prepare
    const target = await receiver({ status: 200, stream: { chunkBytes: 64 * 1024, everyMs: 1 } });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`, { timeoutMs: 5_000 }));

    // Assess
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.responseSnippet).toHaveLength(256);
    expect(result.durationMs).toBeLessThan(5_000);
  });
});

describe('sendWebhook deadline', () => {
  it('times out when the receiver never answers', async () => {
    // Prepare
    const target = await receiver({ hang: true });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`, { timeoutMs: 300 }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 0.3 s' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
    expect(target.requests).toHaveLength(1);
  });

  it('times out when the receiver trickles its answer past the deadline', async () => {
    // Prepare
    const target = await receiver({ status: 200, stream: { chunkBytes: 1, everyMs: 20 } });

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`, { timeoutMs: 300 }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: 200, error: 'timed out after 0.3 s' });
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('counts DNS time against the deadline', async () => {
    // Prepare
    const lookup: LookupAll = () => new Promise(() => {});

    // Act
    const result = await sendWebhook(request('https://slow-dns.test/hook', { timeoutMs: 200, lookup }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 0.2 s' });
  });
});

describe('sendWebhook network failures', () => {
  it('reports a refused connection', async () => {
    // Prepare
    const port = await closedPort();

    // Act
    const result = await sendWebhook(request(`https://127.0.0.1:${port}/hook`));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
  });

  it('reports a DNS failure by its code', async () => {
    // Prepare
    const lookup: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nx.test'), { code: 'ENOTFOUND' });
    };

    // Act
    const result = await sendWebhook(request('https://nx.test/hook', { lookup }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'DNS: ENOTFOUND' });
  });

  it('reports a certificate that does not cover the host name as a TLS error', async () => {
    // Prepare
    const target = await receiver();

    // Act
    const result = await sendWebhook(request(`https://other.example:${target.port}/hook`, { lookup: resolvesTo('127.0.0.1') }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'TLS: ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(target.requests).toHaveLength(0);
  });

  it('reports a server that does not speak TLS as a TLS error', async () => {
    // Prepare
    const plain = await plainTcpServer();

    // Act
    const result = await sendWebhook(request(`https://127.0.0.1:${(plain.address() as AddressInfo).port}/hook`));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^TLS: /) });
  });

  it('never quotes the signature or the body in an error', async () => {
    // Prepare
    const port = await closedPort();
    const urls = [`https://127.0.0.1:${port}/`, 'https://nx.test/', 'http://127.0.0.1/'];

    // Act
    const results = await Promise.all(urls.map((url) => sendWebhook(request(url, { lookup: resolvesTo() }))));

    // Assess
    for (const result of results) {
      expect(result.ok).toBe(false);
      expect(result.error).not.toContain('5ecre7');
      expect(result.error).not.toContain('DB_PASSWORD');
    }
  });
});
