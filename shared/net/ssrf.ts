import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { cidr, inCidr, parseCidr, parseIpv4, parseIpv6, rangeOf } from './ip-ranges.ts';
import type { Cidr, IpBytes } from './ip-ranges.ts';

/** CIDRs exempt from the guard, from `WEBHOOK_ALLOW_PRIVATE_CIDRS` (the local stack and tests; never set in AWS). */
export type AllowedCidrs = readonly Cidr[];

/** Resolves a host name to all of its addresses, in the resolver's order (shape of `dns.promises.lookup` with `all`). */
export type LookupAll = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** The outcome of resolving a webhook host and checking every address it resolves to. */
export type TargetCheck =
  | { kind: 'allowed'; addresses: string[] }
  | { kind: 'unresolved'; code: string }
  | { kind: 'blocked'; address: string; reason: string };

/** The outcome of `checkWebhookUrl`; `reason` is meant to follow `url: ` in a VALIDATION_ERROR message. */
export type UrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** The system resolver, as the sender and the registration check use it in production. */
export const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

// Only the well-known NAT64 prefix has a fixed place for the IPv4 address (RFC 6052: the last 32 bits).
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');
const IPV4_COMPATIBLE = cidr('::/96');
const GLOBAL_UNICAST_V6 = cidr('2000::/3');
const TAILSCALE_V6 = cidr('fd7a:115c:a1e0::/48');
const V4_DOCUMENTATION = [cidr('192.0.2.0/24'), cidr('198.51.100.0/24'), cidr('203.0.113.0/24')];
const V4_BENCHMARKING = cidr('198.18.0.0/15');
const V6_DOCUMENTATION = [cidr('2001:db8::/32'), cidr('3fff::/20')];

// ipaddr.js range names (ip-ranges.ts keeps them) → the words a customer reads. Anything not listed still blocks,
// under its range name.
const V4_REASONS: Record<string, string> = {
  unspecified: 'unspecified (0.0.0.0/8)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254.0.0/16, cloud metadata)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT / tailnet (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  as112: 'AS112 anycast',
  amt: 'AMT relay anycast',
};
const V6_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  linkLocal: 'link-local (fe80::/10)',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  discard: 'discard-only (100::/64)',
  rfc6145: 'IPv4-translated (::ffff:0:0:0/96)',
  teredo: 'Teredo (2001::/32)',
  benchmarking: 'benchmarking (2001:2::/48)',
  reserved: 'reserved',
};

/** Parses `WEBHOOK_ALLOW_PRIVATE_CIDRS` (`127.0.0.0/8,::1/128`); a malformed entry fails loudly at cold start. */
export function parseAllowedCidrs(spec: string | undefined): AllowedCidrs {
  const entries = (spec ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    // Dotted-quad only (parseCidr): "0177.0.0.1/8" would otherwise be read as octal and allow something unexpected.
    const parsed = parseCidr(entry);
    if (parsed === undefined) {
      throw new Error(`WEBHOOK_ALLOW_PRIVATE_CIDRS: "${entry}" is not a CIDR such as 127.0.0.0/8 or ::1/128`);
    }
    return parsed;
  });
}

/**
 * Why a webhook may not connect to `address`, or undefined when it may: only public unicast addresses (range
 * `unicast` in ip-ranges.ts, and for IPv6 inside 2000::/3) pass, unless the address is inside an allowed CIDR.
 * Addresses that embed an IPv4 address are judged by it (IPv4-mapped, well-known NAT64) or blocked outright (6to4,
 * Teredo, IPv4-compatible, local-use NAT64), since a relay or translator would deliver them to that IPv4 address.
 * An address with a zone id (`fe80::1%eth0`) is judged without it, and never passes.
 */
export function blockedReason(address: string, allow: AllowedCidrs): string | undefined {
  // Strict syntax: resolvers and the WHATWG parser only produce canonical forms; anything else is suspicious.
  if (isIP(address) === 0) return 'not an IP address';
  const zone = address.indexOf('%');
  const reason = reasonFor(addressBytes(zone === -1 ? address : address.slice(0, zone)), allow);
  // A zone id ties an address to one of this host's interfaces, which only a non-global address needs: whatever the
  // address before it, a scoped one is never a public destination.
  if (zone !== -1 && reason === undefined) return 'scoped to an interface (zone id)';
  return reason;
}

function reasonFor(parsed: IpBytes, allow: AllowedCidrs): string | undefined {
  // The range is looked up once here (a scan of the special-purpose table) and handed on.
  const range = rangeOf(parsed);
  if (range === 'ipv4Mapped') {
    const v4 = parsed.subarray(12);
    if (isAllowed(v4, allow)) return undefined;
    const reason = ipv4Reason(v4);
    return reason && `IPv4-mapped ${v4.join('.')}: ${reason}`;
  }
  if (isAllowed(parsed, allow)) return undefined;
  return parsed.length === 4 ? ipv4Reason(parsed, range) : ipv6Reason(parsed, range);
}

/**
 * The bytes of an address isIP has passed, its zone id taken off. `::8.8.8.8` is the IPv4-compatible `::808:808`
 * (::/96), which the guard blocks as the README says, not the IPv4-mapped `::ffff:8.8.8.8` ipaddr.js read it as, so
 * that both spellings of one address get one verdict.
 */
function addressBytes(address: string): IpBytes {
  const bytes = address.includes(':') ? parseIpv6(address, 'compatible') : parseIpv4(address);
  if (bytes === undefined) throw new Error(`the SSRF guard cannot read the address ${address}`);
  return bytes;
}

function isAllowed(address: IpBytes, allow: AllowedCidrs): boolean {
  return allow.some((network) => inCidr(address, network));
}

function ipv4Reason(address: IpBytes, range = rangeOf(address)): string | undefined {
  if (range === 'unicast') return undefined;
  if (range === 'reserved') {
    if (V4_DOCUMENTATION.some((network) => inCidr(address, network))) return 'documentation';
    if (inCidr(address, V4_BENCHMARKING)) return 'benchmarking (198.18.0.0/15)';
  }
  return V4_REASONS[range] ?? `special-purpose (${range})`;
}

function ipv6Reason(address: IpBytes, range: string): string | undefined {
  if (range === 'rfc6052') return nat64Reason(address);
  if (range === '6to4') return embeddingReason('6to4 (2002::/16)', address.subarray(2, 6));
  if (range === 'uniqueLocal' && inCidr(address, TAILSCALE_V6)) return 'Tailscale (fd7a:115c:a1e0::/48)';
  if (range === 'reserved' && V6_DOCUMENTATION.some((network) => inCidr(address, network))) return 'documentation';
  if (range !== 'unicast') return V6_REASONS[range] ?? `special-purpose (${range})`;
  if (inCidr(address, IPV4_COMPATIBLE)) return embeddingReason('IPv4-compatible (::/96)', address.subarray(12));
  if (!inCidr(address, GLOBAL_UNICAST_V6)) return 'not global unicast (outside 2000::/3)';
  return undefined;
}

/**
 * The well-known prefix is what DNS64 hands out for IPv4-only hosts (IPv6-only subnets), so it passes when the
 * embedded IPv4 address is public; local-use prefixes place the IPv4 address where their operator chose, so they
 * cannot be checked and are blocked.
 */
function nat64Reason(address: IpBytes): string | undefined {
  if (!inCidr(address, NAT64_WELL_KNOWN)) return 'local-use NAT64 (64:ff9b:1::/48)';
  const v4 = address.subarray(12);
  const reason = ipv4Reason(v4);
  return reason && `NAT64 (64:ff9b::/96) of ${v4.join('.')}: ${reason}`;
}

/** Always a reason: these transition forms are blocked whatever they embed; the embedded address helps the reader. */
function embeddingReason(form: string, v4: IpBytes): string {
  const reason = ipv4Reason(v4);
  return reason ? `${form} of ${v4.join('.')}: ${reason}` : `${form} of ${v4.join('.')}`;
}

/** The host of a URL as a resolver or socket wants it: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves `host` once (an IP literal is taken as is) and checks EVERY address, so one private answer among
 * public ones is enough to block. Never throws: a resolver failure comes back as `unresolved` with its code.
 */
export async function checkTarget(host: string, allow: AllowedCidrs, lookup: LookupAll): Promise<TargetCheck> {
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host)).map((entry) => entry.address);
    } catch (error) {
      return { kind: 'unresolved', code: errorCode(error) ?? 'lookup failed' };
    }
    if (addresses.length === 0) return { kind: 'unresolved', code: 'ENODATA' };
  }
  for (const address of addresses) {
    const reason = blockedReason(address, allow);
    if (reason !== undefined) return { kind: 'blocked', address, reason };
  }
  return { kind: 'allowed', addresses };
}

/**
 * Checks a webhook url on registration and on PATCH: https only, no credentials, and every address it resolves to
 * must pass `blockedReason`. Odd IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.1, 127.1) are normalised by the
 * WHATWG parser before the check. The reason never repeats the url, so it cannot leak credentials.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allow: AllowedCidrs; lookup?: LookupAll; lookupTimeoutMs?: number },
): Promise<UrlCheck> {
  const url = URL.parse(raw);
  if (url === null) return { ok: false, reason: 'is not a valid URL' };
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not contain a username or password' };
  }
  const host = hostOf(url);
  if (host === '') return { ok: false, reason: 'must have a host' };
  const lookup = withDeadline(options.lookup ?? systemLookup, options.lookupTimeoutMs ?? REGISTRATION_LOOKUP_TIMEOUT_MS);
  const target = await checkTarget(host, options.allow, lookup);
  if (target.kind === 'allowed') return { ok: true, url, addresses: target.addresses };
  if (target.kind === 'unresolved') {
    return { ok: false, reason: `host ${host} does not resolve${target.code === 'ENOTFOUND' ? '' : ` (${target.code})`}` };
  }
  const verb = isIP(host) !== 0 ? 'points to' : 'resolves to';
  return { ok: false, reason: `${verb} a blocked address: ${target.address} (${target.reason})` };
}

/** How long registration waits for DNS: a resolver that hangs must not hold the request until the Lambda times out. */
export const REGISTRATION_LOOKUP_TIMEOUT_MS = 5_000;

/** A lookup that fails with code ETIMEOUT once `ms` pass (dns.lookup cannot be cancelled, only stopped waiting for). */
function withDeadline(lookup: LookupAll, ms: number): LookupAll {
  return async (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })), ms);
    });
    try {
      return await Promise.race([lookup(hostname), deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
