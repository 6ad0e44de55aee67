/**
 * The source-address limit of access keys (`allowedCidrs`, decisions.md "Permissions of access keys"): checked
 * against API Gateway's `requestContext.http.sourceIp`, the address API Gateway saw the connection from. Headers
 * (`X-Forwarded-For`) are never read: a caller writes them.
 */
import { isIP } from 'node:net';
import { inCidr, parseCidr, parseIpv4, parseIpv6, type Cidr, type IpBytes } from '../net/ip-ranges.ts';

/** An address's bytes; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is its IPv4 address. */
function addressBytes(address: string): IpBytes | undefined {
  const family = isIP(address);
  if (family === 4) return parseIpv4(address);
  if (family !== 6) return undefined;
  const bytes = parseIpv6(address, 'compatible');
  const mapped = bytes && bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.subarray(12) : bytes;
}

/** Compiled lists of CIDRs, by their text: a key's list is parsed once per container. */
const compiled = new Map<string, readonly Cidr[]>();
const COMPILED_KEPT = 500;

/**
 * Whether `sourceIp` lies in one of `cidrs`; an empty or absent list is anywhere. An address that cannot be read
 * lies in none (a request without one is refused by a key that has a list).
 */
export function fromAllowedAddress(sourceIp: string | undefined, cidrs: readonly string[] | null | undefined): boolean {
  if (!cidrs || cidrs.length === 0) return true;
  const bytes = sourceIp === undefined ? undefined : addressBytes(sourceIp);
  if (!bytes) return false;
  const text = cidrs.join(',');
  let networks = compiled.get(text);
  if (!networks) {
    networks = cidrs.map(parseCidr).filter((cidr): cidr is Cidr => cidr !== undefined);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, networks);
  }
  return networks.some((network) => inCidr(bytes, network));
}
