import { describe, expect, it, vi } from 'vitest';
import { blockedReason, checkWebhookUrl, parseAllowedCidrs, REGISTRATION_LOOKUP_TIMEOUT_MS } from '../../../shared/net/ssrf.ts';
import type { LookupAll } from '../../../shared/net/ssrf.ts';

const NO_ALLOW = parseAllowedCidrs(undefined);

/** A resolver that answers from a table; names not in it fail like the system resolver does. */
function fakeLookup(table: Record<string, string[]>): LookupAll {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** IP-literal urls must be judged without DNS. */
const lookupMustNotRun: LookupAll = async (hostname) => {
  throw new Error(`lookup called for ${hostname}`);
};

describe('blockedReason', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT / tailnet (100.64.0.0/10)'],
    ['100.100.100.100', 'carrier-grade NAT / tailnet'],
    ['100.127.255.254', 'carrier-grade NAT / tailnet'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.254', 'benchmarking'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fe80::1%en-0.1', 'link-local'],
    ['::8.8.8.8%eth0', 'IPv4-compatible (::/96) of 8.8.8.8'],
    ['2606:4700::1%eth0', 'scoped to an interface (zone id)'],
    ['::ffff:8.8.8.8%1', 'scoped to an interface (zone id)'],
    ['fc00::1', 'unique local (fc00::/7)'],
    ['fdff:ffff::1', 'unique local'],
    ['fd7a:115c:a1e0::1', 'Tailscale (fd7a:115c:a1e0::/48)'],
    ['fd7a:115c:a1e0:ab12:4843:cd96:6258:b240', 'Tailscale'],
    ['ff02::1', 'multicast'],
    ['ff05::2', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254: link-local'],
    ['::ffff:10.1.2.3', 'IPv4-mapped 10.1.2.3: private'],
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96) of 127.0.0.1: loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 (64:ff9b::/96) of 169.254.169.254: link-local'],
    ['64:ff9b::192.168.0.1', 'NAT64 (64:ff9b::/96) of 192.168.0.1: private'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 (2002::/16) of 127.0.0.1: loopback'],
    ['2002:a9fe:a9fe::1', '6to4 (2002::/16) of 169.254.169.254: link-local'],
    ['2002:101:101::1', '6to4 (2002::/16) of 1.1.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)'],
    ['::7f00:1', 'IPv4-compatible (::/96) of 127.0.0.1: loopback'],
    ['::808:808', 'IPv4-compatible (::/96) of 8.8.8.8'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['fec0::1', 'site-local'],
    ['100::1', 'discard-only'],
    ['2001:2::1', 'benchmarking'],
    ['5f00::1', 'special-purpose'],
    ['4000::1', 'not global unicast'],
    ['0177.0.0.1', 'not an IP address'],
    ['example.com', 'not an IP address'],
    ['', 'not an IP address'],
  ])('blocks %s (%s)', (address, expected) => {
    // Prepare / Act
    const reason = blockedReason(address, NO_ALLOW);

    // Assess
    expect(reason).toContain(expected);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '100.63.255.255',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '169.255.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '::ffff:1.1.1.1',
    '64:ff9b::808:808',
  ])('allows the public address %s', (address) => {
    // Prepare / Act
    const reason = blockedReason(address, NO_ALLOW);

    // Assess
    expect(reason).toBeUndefined();
  });

  // First and last address of blocked ranges, and where ranges overlap or nest, the neighbour on the other side.
  it.each([
    ['10.0.0.0', 'private'],
    ['127.0.0.0', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['169.254.0.0', 'link-local (169.254.0.0/16, cloud metadata)'],
    ['169.254.255.255', 'link-local (169.254.0.0/16, cloud metadata)'],
    ['100.64.0.0', 'carrier-grade NAT / tailnet (100.64.0.0/10)'],
    ['100.127.255.255', 'carrier-grade NAT / tailnet (100.64.0.0/10)'],
    ['198.18.0.0', 'benchmarking (198.18.0.0/15)'],
    ['198.19.255.255', 'benchmarking (198.18.0.0/15)'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['fc00::', 'unique local (fc00::/7)'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local (fc00::/7)'],
    ['fe00::', 'not global unicast (outside 2000::/3)'],
    ['fe80::', 'link-local (fe80::/10)'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local (fe80::/10)'],
    ['fec0::', 'site-local (fec0::/10)'],
    ['fd7a:115c:a1df:ffff:ffff:ffff:ffff:ffff', 'unique local (fc00::/7)'],
    ['fd7a:115c:a1e0:ffff:ffff:ffff:ffff:ffff', 'Tailscale (fd7a:115c:a1e0::/48)'],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not global unicast (outside 2000::/3)'],
    ['2001::', 'Teredo (2001::/32)'],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo (2001::/32)'],
    ['2001:1::', 'reserved'],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['2001:db8::', 'documentation'],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['2002::', '6to4 (2002::/16) of 0.0.0.0: unspecified (0.0.0.0/8)'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '6to4 (2002::/16) of 255.255.255.255: broadcast'],
    ['64:ff9b::', 'NAT64 (64:ff9b::/96) of 0.0.0.0: unspecified (0.0.0.0/8)'],
    ['64:ff9b::ffff:ffff', 'NAT64 (64:ff9b::/96) of 255.255.255.255: broadcast'],
    ['64:ff9b::1:0:0', 'not global unicast (outside 2000::/3)'],
    ['::fffe:ffff:ffff', 'not global unicast (outside 2000::/3)'],
    ['::ffff:0:0', 'IPv4-mapped 0.0.0.0: unspecified (0.0.0.0/8)'],
    ['::ffff:ffff:ffff', 'IPv4-mapped 255.255.255.255: broadcast'],
    ['::1:0:0:0', 'not global unicast (outside 2000::/3)'],
  ])('blocks the range edge %s (%s)', (address, expected) => {
    // Prepare / Act
    const reason = blockedReason(address, NO_ALLOW);

    // Assess
    expect(reason).toBe(expected);
  });

  it.each([
    '9.255.255.255',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2000::',
    '2001:200::',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db9::',
    '2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2003::',
    '3fff:1000::',
  ])('allows %s, just outside a blocked range', (address) => {
    // Prepare / Act
    const reason = blockedReason(address, NO_ALLOW);

    // Assess
    expect(reason).toBeUndefined();
  });

  it('lets an allowed CIDR through and nothing else', () => {
    // Prepare
    const allow = parseAllowedCidrs('127.0.0.0/8');

    // Act / Assess
    expect(blockedReason('127.0.0.1', allow)).toBeUndefined();
    expect(blockedReason('::ffff:127.0.0.1', allow)).toBeUndefined();
    expect(blockedReason('10.0.0.1', allow)).toBe('private');
    expect(blockedReason('::1', allow)).toBe('loopback');
    expect(blockedReason('64:ff9b::7f00:1', allow)).toContain('NAT64');
  });

  it('lets an allowed CIDR through up to its last address, and not one past it', () => {
    // Prepare
    const allow = parseAllowedCidrs('10.0.0.0/9,fd00::/8');

    // Act / Assess
    expect(blockedReason('10.0.0.0', allow)).toBeUndefined();
    expect(blockedReason('10.127.255.255', allow)).toBeUndefined();
    expect(blockedReason('10.128.0.0', allow)).toBe('private');
    expect(blockedReason('fd00::', allow)).toBeUndefined();
    expect(blockedReason('fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', allow)).toBeUndefined();
    expect(blockedReason('fcff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', allow)).toBe('unique local (fc00::/7)');
  });
});

describe('parseAllowedCidrs', () => {
  it('reads a comma-separated list of IPv4 and IPv6 CIDRs', () => {
    // Prepare / Act
    const allow = parseAllowedCidrs(' 127.0.0.0/8, ::1/128 ,');

    // Assess
    expect(allow.map(([network, bits]) => `${network.toString()}/${bits}`)).toEqual(['127.0.0.0/8', '::1/128']);
    expect(parseAllowedCidrs('')).toEqual([]);
  });

  it.each(['127.0.0.1', '10.0.0.0/33', 'abc', '0177.0.0.0/8', '::1/129'])('refuses the malformed entry %s', (entry) => {
    // Prepare / Act / Assess
    expect(() => parseAllowedCidrs(`127.0.0.0/8,${entry}`)).toThrow(`WEBHOOK_ALLOW_PRIVATE_CIDRS: "${entry}"`);
  });

  it.each([
    ['127.0.0.0/08', '127.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::1/0128', '::1/128'],
    ['FE80:0:0:0:0:0:0:0/10', 'fe80::/10'],
  ])('reads the entry %s as %s', (entry, expected) => {
    // Prepare / Act
    const allow = parseAllowedCidrs(entry);

    // Assess
    expect(allow.map(([network, bits]) => `${network.toString()}/${bits}`)).toEqual([expected]);
  });

  it.each([
    '010.0.0.0/8',
    '10.0.0.00/8',
    '0x7f.0.0.0/8',
    '127.1/8',
    '127.0.0.0 /8',
    '127.0.0.0/ 8',
    '127.0.0.0/+8',
    '::1/0129',
    '1::2::3/64',
    '[::1]/128',
  ])('refuses the entry %s, which is not four-part decimal IPv4 or IPv6 with a prefix in range', (entry) => {
    // Prepare / Act / Assess
    expect(() => parseAllowedCidrs(entry)).toThrow(`WEBHOOK_ALLOW_PRIVATE_CIDRS: "${entry}" is not a CIDR such as 127.0.0.0/8 or ::1/128`);
  });
});

describe('checkWebhookUrl', () => {
  it.each([
    ['https://2130706433/', '127.0.0.1 (loopback)'],
    ['https://0177.0.0.1/', '127.0.0.1 (loopback)'],
    ['https://0x7f.1/', '127.0.0.1 (loopback)'],
    ['https://127.1/', '127.0.0.1 (loopback)'],
    ['https://0x7f000001/hook', '127.0.0.1 (loopback)'],
    ['https://%31%32%37.0.0.1/', '127.0.0.1 (loopback)'],
    ['https://127.0.0.1./', '127.0.0.1 (loopback)'],
    ['https://0/', '0.0.0.0 (unspecified'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 (link-local'],
    ['https://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 (link-local'],
    ['https://10.0.0.1:8443/hook', '10.0.0.1 (private)'],
    ['https://100.101.102.103/', '100.101.102.103 (carrier-grade NAT / tailnet'],
    ['https://[::1]:8443/hook', '::1 (loopback)'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe (IPv4-mapped 169.254.169.254: link-local'],
    ['https://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1 (IPv4-mapped 127.0.0.1: loopback)'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 (NAT64 (64:ff9b::/96) of 127.0.0.1: loopback)'],
    ['https://[2002:7f00:1::]/', '2002:7f00:1:: (6to4 (2002::/16) of 127.0.0.1: loopback)'],
    ['https://[fd7a:115c:a1e0::1]/', 'fd7a:115c:a1e0::1 (Tailscale'],
  ])('refuses %s, which points to %s', async (raw, expected) => {
    // Prepare / Act
    const result = await checkWebhookUrl(raw, { allow: NO_ALLOW, lookup: lookupMustNotRun });

    // Assess
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(`points to a blocked address: ${expected}`) });
  });

  it.each([
    ['http://example.com/hook', 'must use https'],
    ['http://1.1.1.1/', 'must use https'],
    ['ftp://example.com/', 'must use https'],
    ['javascript:alert(1)', 'must use https'],
    ['https://user:pass@example.com/', 'must not contain a username or password'],
    ['https://user@example.com/', 'must not contain a username or password'],
    ['https://:s3cr3t@example.com/', 'must not contain a username or password'],
    ['not a url', 'is not a valid URL'],
    ['', 'is not a valid URL'],
    ['https://', 'is not a valid URL'],
    ['https://exa mple.com/', 'is not a valid URL'],
    ['//example.com/hook', 'is not a valid URL'],
    ['https://[::1/', 'is not a valid URL'],
    ['https://[fe80::1%25eth0]/', 'is not a valid URL'],
  ])('refuses %s: %s', async (raw, expected) => {
    // Prepare / Act
    const result = await checkWebhookUrl(raw, { allow: NO_ALLOW, lookup: fakeLookup({ 'example.com': ['1.1.1.1'] }) });

    // Assess
    expect(result).toEqual({ ok: false, reason: expected });
  });

  it('never repeats credentials in the reason', async () => {
    // Prepare / Act
    const result = await checkWebhookUrl('https://admin:hunter2@10.0.0.1/', { allow: NO_ALLOW });

    // Assess
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/hunter2|admin/);
  });

  it.each([
    ['https://1.1.1.1/hook', ['1.1.1.1']],
    ['https://[2606:4700:4700::1111]/hook', ['2606:4700:4700::1111']],
  ])('accepts the public IP literal %s', async (raw, addresses) => {
    // Prepare / Act
    const result = await checkWebhookUrl(raw, { allow: NO_ALLOW, lookup: lookupMustNotRun });

    // Assess
    expect(result).toEqual({ ok: true, url: new URL(raw), addresses });
  });

  it('accepts a host name whose every address is public, resolving it through the injected lookup', async () => {
    // Prepare
    const lookup = vi.fn(fakeLookup({ 'example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:c8e1'] }));

    // Act
    const result = await checkWebhookUrl('https://example.com/hooks?x=1', { allow: NO_ALLOW, lookup });

    // Assess
    expect(result).toEqual({
      ok: true,
      url: new URL('https://example.com/hooks?x=1'),
      addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:c8e1'],
    });
    expect(lookup).toHaveBeenCalledExactlyOnceWith('example.com');
  });

  it('refuses a host name when one of its addresses is private', async () => {
    // Prepare
    const lookup = fakeLookup({ 'mixed.test': ['93.184.215.14', '10.0.0.1'] });

    // Act
    const result = await checkWebhookUrl('https://mixed.test/', { allow: NO_ALLOW, lookup });

    // Assess
    expect(result).toEqual({ ok: false, reason: 'resolves to a blocked address: 10.0.0.1 (private)' });
  });

  it.each([
    [{}, 'host nx.test does not resolve'],
    [{ 'nx.test': [] }, 'host nx.test does not resolve (ENODATA)'],
  ])('refuses a host name that does not resolve (%j)', async (table, expected) => {
    // Prepare / Act
    const result = await checkWebhookUrl('https://nx.test/', { allow: NO_ALLOW, lookup: fakeLookup(table) });

    // Assess
    expect(result).toEqual({ ok: false, reason: expected });
  });

  it('names a temporary resolver failure', async () => {
    // Prepare
    const lookup: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };

    // Act
    const result = await checkWebhookUrl('https://slow.test/', { allow: NO_ALLOW, lookup });

    // Assess
    expect(result).toEqual({ ok: false, reason: 'host slow.test does not resolve (EAI_AGAIN)' });
  });

  it('gives up on a lookup that hangs after its own deadline, naming the timeout', async () => {
    // Prepare: a resolver that never answers
    const lookup: LookupAll = () => new Promise(() => undefined);
    // Act
    const started = Date.now();
    const result = await checkWebhookUrl('https://hangs.test/', { allow: NO_ALLOW, lookup, lookupTimeoutMs: 50 });
    // Assess
    expect(result).toEqual({ ok: false, reason: 'host hangs.test does not resolve (ETIMEOUT)' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('waits 5 s for a hanging lookup by default, not until the Lambda times out', async () => {
    // Prepare: a resolver that never answers, and fake time
    expect(REGISTRATION_LOOKUP_TIMEOUT_MS).toBe(5_000);
    vi.useFakeTimers();
    try {
      const lookup: LookupAll = () => new Promise(() => undefined);
      let settled: unknown;
      void checkWebhookUrl('https://hangs.test/', { allow: NO_ALLOW, lookup }).then((result) => (settled = result));
      // Act / Assess
      await vi.advanceTimersByTimeAsync(REGISTRATION_LOOKUP_TIMEOUT_MS - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toEqual({ ok: false, reason: 'host hangs.test does not resolve (ETIMEOUT)' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('judges the dotted IPv4-compatible form (::a.b.c.d, ::/96) like its hex form, not as IPv4-mapped', async () => {
    for (const [address, reason] of [
      ['::8.8.8.8', 'IPv4-compatible (::/96) of 8.8.8.8'],
      ['::127.0.0.1', 'IPv4-compatible (::/96) of 127.0.0.1: loopback'],
      ['::169.254.169.254', 'IPv4-compatible (::/96) of 169.254.169.254: link-local (169.254.0.0/16, cloud metadata)'],
      ['::10.0.0.1', 'IPv4-compatible (::/96) of 10.0.0.1: private'],
      ['0:0:0:0:0:0:1.1.1.1', 'IPv4-compatible (::/96) of 1.1.1.1'],
      ['::0.0.0.1', 'loopback'],
      ['::0.0.0.0', 'unspecified'],
      ['::ffff:0:8.8.8.8', 'IPv4-translated (::ffff:0:0:0/96)'],
    ] as const) {
      expect(blockedReason(address, NO_ALLOW), address).toBe(reason);
      expect(blockedReason(address, NO_ALLOW)).toBe(blockedReason(new URL(`https://[${address}]/`).hostname.slice(1, -1), NO_ALLOW));
    }
    expect(blockedReason('::ffff:8.8.8.8', NO_ALLOW)).toBeUndefined();
    expect(blockedReason('::ffff:127.0.0.1', NO_ALLOW)).toBe('IPv4-mapped 127.0.0.1: loopback');
    expect(blockedReason('::FFFF:8.8.8.8', NO_ALLOW)).toBeUndefined();
    expect(blockedReason('64:ff9b::8.8.8.8', NO_ALLOW)).toBeUndefined();
    // Allowing 127.0.0.0/8 allows that IPv4 range and its IPv4-mapped spelling, not the IPv4-compatible one.
    expect(blockedReason('::127.0.0.1', parseAllowedCidrs('127.0.0.0/8'))).toBe('IPv4-compatible (::/96) of 127.0.0.1: loopback');
    const lookup: LookupAll = async () => [{ address: '::8.8.8.8', family: 6 }];
    expect(await checkWebhookUrl('https://compat.test/', { allow: NO_ALLOW, lookup })).toEqual({
      ok: false,
      reason: 'resolves to a blocked address: ::8.8.8.8 (IPv4-compatible (::/96) of 8.8.8.8)',
    });
  });

  it('uses the system resolver by default (localhost is loopback)', async () => {
    // Prepare / Act
    const result = await checkWebhookUrl('https://localhost/', { allow: NO_ALLOW });

    // Assess
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^resolves to a blocked address: .* \(.*loopback\)$/) });
  });

  it('lets an allow-listed loopback url through, but not a private one', async () => {
    // Prepare
    const allow = parseAllowedCidrs('127.0.0.0/8');

    // Act
    const loopback = await checkWebhookUrl('https://127.0.0.1:8443/hook', { allow });
    const privateUrl = await checkWebhookUrl('https://10.0.0.1/hook', { allow });

    // Assess
    expect(loopback).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    expect(privateUrl).toEqual({ ok: false, reason: 'points to a blocked address: 10.0.0.1 (private)' });
  });
});
