import { describe, expect, it, vi } from 'vitest';
import { sendWebhook } from '../../../../shared/webhooks/deliveries/sender.ts';
import type { LookupAll } from '../../../../shared/net/ssrf.ts';
import { BODY, HEADERS, closeServersAfterEach, receiver, request, resolvesTo } from './sender-support.ts';

// The guard runs again on every attempt against the address actually connected to (api.md section 4).
closeServersAfterEach();

describe('sendWebhook SSRF guard', () => {
  it('blocks 127.0.0.1 without the allow list and never connects', async () => {
    // Prepare
    const target = await receiver();

    // Act
    const result = await sendWebhook(request(`${target.origin}/hook`, { allow: [] }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'blocked: 127.0.0.1 (loopback)' });
    expect(target.connections()).toBe(0);
  });

  it('refuses a url that is not https before any connection', async () => {
    // Prepare
    const target = await receiver();

    // Act
    const result = await sendWebhook(request(`http://127.0.0.1:${target.port}/hook`));

    // Assess
    expect(result).toMatchObject({ ok: false, error: 'blocked: url is not a valid https url' });
    expect(target.connections()).toBe(0);
  });

  it('blocks a host name that resolves to loopback unless loopback is allowed', async () => {
    // Prepare
    const target = await receiver();
    const url = `https://rebind.test:${target.port}/hook`;

    // Act
    const result = await sendWebhook(request(url, { allow: [], lookup: resolvesTo('127.0.0.1') }));

    // Assess
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'blocked: rebind.test resolves to 127.0.0.1 (loopback)' });
    expect(target.connections()).toBe(0);
  });

  it('blocks a host name when any of its addresses is blocked', async () => {
    // Prepare
    const target = await receiver();
    const lookup = resolvesTo('127.0.0.1', '169.254.169.254');

    // Act
    const result = await sendWebhook(request(`https://rebind.test:${target.port}/hook`, { lookup }));

    // Assess
    expect(result.error).toBe('blocked: rebind.test resolves to 169.254.169.254 (link-local (169.254.0.0/16, cloud metadata))');
    expect(target.connections()).toBe(0);
  });

  it('resolves once and connects to the checked address with the original Host and SNI', async () => {
    // Prepare
    const target = await receiver();
    // A rebinding resolver: the first answer passes the check, any later one would point elsewhere.
    const lookup = vi
      .fn<LookupAll>()
      .mockResolvedValueOnce([{ address: '127.0.0.1', family: 4 }])
      .mockResolvedValue([{ address: '10.0.0.1', family: 4 }]);

    // Act
    const result = await sendWebhook(request(`https://rebind.test:${target.port}/hook`, { lookup }));

    // Assess
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(lookup).toHaveBeenCalledExactlyOnceWith('rebind.test');
    expect(target.requests[0]).toMatchObject({ servername: 'rebind.test', body: BODY });
    expect(target.requests[0]?.headers.host).toBe(`rebind.test:${target.port}`);
  });

  it('keeps its own Host header when the caller passes one', async () => {
    // Prepare
    const target = await receiver();

    // Act
    await sendWebhook(request(`${target.origin}/hook`, { headers: { ...HEADERS, host: 'internal.example' } }));

    // Assess
    expect(target.requests[0]?.headers.host).toBe(`127.0.0.1:${target.port}`);
  });
});
