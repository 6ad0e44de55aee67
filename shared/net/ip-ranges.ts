/**
 * IP addresses as bytes, CIDR prefixes over them, and the special-purpose ranges the SSRF guard classifies by.
 *
 * Hand-written in place of ipaddr.js: a well-kept library, but the guard needs only prefix matching over a fixed
 * table, and its 12.8 KB were loaded on every delivery attempt's cold start; node:net has isIP but no ranges. The
 * grammar, the range table and its precedence are ipaddr.js 2.5.0's, so that every verdict stays what it was.
 */

/** An address as its bytes in network order: 4 for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

/** An address that prints as ipaddr.js printed it (less any zone id): a dotted quad, or IPv6 in RFC 5952 form. */
export class IpAddress {
  readonly bytes: IpBytes;

  constructor(bytes: IpBytes) {
    this.bytes = bytes;
  }

  toString(): string {
    if (this.bytes.length === 4) return this.bytes.join('.');
    const groups = [0, 2, 4, 6, 8, 10, 12, 14].map((i) => ((this.bytes[i]! << 8) | this.bytes[i + 1]!).toString(16));
    // The WHATWG serialiser compresses the longest (first) run of two or more zero groups, as RFC 5952 asks.
    return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
  }
}

/** A network as written in a CIDR: the address (host bits kept, they are never compared) and the prefix length. */
export type Cidr = readonly [network: IpAddress, bits: number];

const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const ZONE_ID = /^[0-9a-z]+$/i;
// ipaddr.js read the dotted tail of an IPv6 address leniently: zero-padded decimal (read as decimal) or 0x hex.
const TAIL_OCTET = /^(?:0?\d+|0x[0-9a-f]+)$/i;

/** An IPv4 address in four-part decimal without leading zeros (no octal, hex or short forms), or undefined. */
export function parseIpv4(text: string): IpBytes | undefined {
  const match = DOTTED_QUAD.exec(text);
  const octets = match?.slice(1).map(Number);
  return octets?.every((octet) => octet <= 255) ? Uint8Array.from(octets) : undefined;
}

/**
 * An IPv6 address as ipaddr.js read it, or undefined: hex groups with at most one `::` that stands for at least one
 * group, an optional dotted IPv4 tail for the last 32 bits, an optional alphanumeric zone id (ignored). A tail right
 * after a bare `::` is IPv4-compatible (`::808:808`) or, as ipaddr.js had it, IPv4-mapped (`::ffff:808:808`).
 *
 * Written out rather than canonicalised through the WHATWG URL parser: that parser refuses what an allow-list entry
 * may hold (zone ids, zero-padded or hex tails), and one parser serves both the allow-list and the addresses, which
 * isIP has already checked.
 */
export function parseIpv6(text: string, bareColonsTail: 'compatible' | 'mapped'): IpBytes | undefined {
  const percent = text.indexOf('%');
  if (percent !== -1 && !ZONE_ID.test(text.slice(percent + 1))) return undefined;
  const address = percent === -1 ? text : text.slice(0, percent);
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (!tail.includes('.')) return bytesOf(expand(address, 8), []);
  const octets = tail.split('.').map(tailOctet);
  if (octets.length !== 4 || octets.some((octet) => octet === undefined)) return undefined;
  let head = address.slice(0, lastColon + 1);
  if (head === '::' && bareColonsTail === 'mapped') head = '::ffff:';
  return bytesOf(expand(head.endsWith('::') ? head : head.slice(0, -1), 6), octets as number[]);
}

function tailOctet(text: string): number | undefined {
  if (!TAIL_OCTET.test(text)) return undefined;
  const value = /^0x/i.test(text) ? Number.parseInt(text.slice(2), 16) : Number.parseInt(text, 10);
  return value <= 255 ? value : undefined;
}

/** `count` 16-bit groups from hex text, `::` filled with zero groups; undefined for anything malformed. */
function expand(text: string, count: number): number[] | undefined {
  const halves = text.split('::').map((half) => (half === '' ? [] : half.split(':')));
  if (halves.length > 2 || !halves.every((half) => half.every((group) => HEX_GROUP.test(group)))) return undefined;
  const [left, right = []] = halves as [string[], string[]?];
  const explicit = left.length + right.length;
  if (halves.length === 1 ? explicit !== count : explicit >= count) return undefined;
  return [...left, ...Array<string>(count - explicit).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
}

function bytesOf(groups: number[] | undefined, tail: number[]): IpBytes | undefined {
  return groups && Uint8Array.from([...groups.flatMap((group) => [group >> 8, group & 0xff]), ...tail]);
}

/**
 * A CIDR as ipaddr.js accepted it for the allow-list, or undefined: an IPv6 address (as `parseIpv6` reads it, with
 * ipaddr.js's IPv4-mapped `::a.b.c.d`) over 0–128 bits, or a four-part decimal IPv4 address over 0–32 bits. The
 * prefix is ASCII digits and may be zero-padded (`/08` is 8); no whitespace anywhere.
 */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.lastIndexOf('/');
  const prefix = text.slice(slash + 1);
  if (slash < 1 || !/^\d+$/.test(prefix)) return undefined;
  const spec = text.slice(0, slash);
  const bits = Number.parseInt(prefix, 10);
  const bytes = spec.includes(':') ? parseIpv6(spec, 'mapped') : parseIpv4(spec);
  if (bytes === undefined || bits > bytes.length * 8) return undefined;
  return [new IpAddress(bytes), bits];
}

/** A CIDR written in this codebase; a typo fails when the module loads. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new Error(`not a CIDR: ${text}`);
  return parsed;
}

/** Whether `bytes` lie in `[network, bits]`; an IPv4 address never lies in an IPv6 network, nor the reverse. */
export function inCidr(bytes: IpBytes, [network, bits]: Cidr): boolean {
  if (bytes.length !== network.bytes.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== network.bytes[i]) return false;
  const rest = bits & 7;
  return rest === 0 || (bytes[whole]! ^ network.bytes[whole]!) >> (8 - rest) === 0;
}

/** Ranges as [ipaddr.js range name, CIDRs]; the order is ipaddr.js's, which matters where ranges overlap. */
type RangeTable = readonly (readonly [name: string, cidrs: readonly string[]])[];

// ipaddr.js IPv4.prototype.SpecialRanges. Overlap: broadcast lies inside reserved 240.0.0.0/4 and comes first.
const V4_SPECIAL: RangeTable = [
  ['unspecified', ['0.0.0.0/8']],
  ['broadcast', ['255.255.255.255/32']],
  ['multicast', ['224.0.0.0/4']],
  ['linkLocal', ['169.254.0.0/16']],
  ['loopback', ['127.0.0.0/8']],
  ['carrierGradeNat', ['100.64.0.0/10']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['reserved', ['192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4']],
  ['as112', ['192.175.48.0/24', '192.31.196.0/24']],
  ['amt', ['192.52.193.0/24']],
];

// ipaddr.js IPv6.prototype.SpecialRanges. Overlap: teredo, benchmarking, amt, as112v6 (2001:4:112::/48) and the
// three ORCHID-like /28s lie inside reserved 2001::/23 and come before it, so they keep their own names.
const V6_SPECIAL: RangeTable = [
  ['unspecified', ['::/128']],
  ['linkLocal', ['fe80::/10']],
  ['multicast', ['ff00::/8']],
  ['loopback', ['::1/128']],
  ['uniqueLocal', ['fc00::/7']],
  ['ipv4Mapped', ['::ffff:0:0/96']],
  ['deprecatedSiteLocal', ['fec0::/10']],
  ['discard', ['100::/64']],
  ['rfc6145', ['::ffff:0:0:0/96']],
  ['rfc6052', ['64:ff9b::/96', '64:ff9b:1::/48']],
  ['6to4', ['2002::/16']],
  ['teredo', ['2001::/32']],
  ['benchmarking', ['2001:2::/48']],
  ['amt', ['2001:3::/32']],
  ['as112v6', ['2001:4:112::/48', '2620:4f:8000::/48']],
  ['deprecatedOrchid', ['2001:10::/28']],
  ['orchid2', ['2001:20::/28']],
  ['droneRemoteIdProtocolEntityTags', ['2001:30::/28']],
  ['segmentRouting', ['5f00::/16']],
  ['reserved', ['2001::/23', '2001:db8::/32', '3fff::/20']],
];

const parseTable = (table: RangeTable) => table.flatMap(([name, cidrs]) => cidrs.map((text) => [name, cidr(text)] as const));
const V4_RANGES = parseTable(V4_SPECIAL);
const V6_RANGES = parseTable(V6_SPECIAL);

/** The ipaddr.js name of the first special-purpose range holding `bytes` (its `range()`), or `unicast` if none. */
export function rangeOf(bytes: IpBytes): string {
  const ranges = bytes.length === 4 ? V4_RANGES : V6_RANGES;
  return ranges.find(([, network]) => inCidr(bytes, network))?.[0] ?? 'unicast';
}
