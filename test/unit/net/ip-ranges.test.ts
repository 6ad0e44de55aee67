import { describe, expect, it } from 'vitest';
import { cidr, inCidr, IpAddress, parseCidr, parseIpv4, parseIpv6, rangeOf } from '../../../shared/net/ip-ranges.ts';

/**
 * The address grammar, CIDR matching and range table the SSRF guard and the access keys' networks stand on
 * (shared/net/ip-ranges.ts): what each parser takes and refuses at its edges, prefixes that end inside a byte, and
 * the ranges' precedence where they overlap (ipaddr.js 2.5.0's, which the module keeps).
 */

const v4 = (text: string) => [...(parseIpv4(text) ?? [])];
const v6 = (text: string, tail: 'compatible' | 'mapped' = 'compatible') => {
  const bytes = parseIpv6(text, tail);
  return bytes && new IpAddress(bytes).toString();
};
const range = (text: string) => rangeOf(text.includes(':') ? parseIpv6(text, 'compatible')! : parseIpv4(text)!);

describe('parseIpv4', () => {
  it('reads four decimal octets of 0 to 255', () => {
    // Act
    const read = ['0.0.0.0', '255.255.255.255', '192.168.0.1'].map(v4);

    // Assess
    expect(read).toEqual([
      [0, 0, 0, 0],
      [255, 255, 255, 255],
      [192, 168, 0, 1],
    ]);
  });

  it.each(['256.0.0.1', '1.2.3.999', '01.2.3.4', '0x7f.0.0.1', '127.1', '1.2.3', '1.2.3.4.5', ' 1.2.3.4', '1.2.3.4 ', '', '1.2.3.-4'])(
    'refuses %j (no octal, hex, short form or whitespace)',
    (text) => {
      // Act
      const parsed = parseIpv4(text);

      // Assess
      expect(parsed).toBeUndefined();
    },
  );
});

describe('parseIpv6', () => {
  it('reads full and compressed forms, and prints them in RFC 5952 form', () => {
    // Act
    const printed = [
      '0:0:0:0:0:0:0:1',
      '::',
      '2001:DB8::1',
      'fe80::1%eth0',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      '2001:db8:0:0:1:0:0:1',
    ].map((text) => v6(text));

    // Assess
    expect(printed).toEqual(['::1', '::', '2001:db8::1', 'fe80::1', '1:2:3:4:5:6:7:0', '0:2:3:4:5:6:7:8', '2001:db8::1:0:0:1']);
  });

  it('refuses a second ::, a :: that stands for no group, a group of five digits, and the wrong number of groups', () => {
    // Act
    const refused = [
      '1::2::3',
      '1:2:3:4::5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '12345::',
      'g::1',
      '1:2:3:4:5:6:7:8%',
      'fe80::1%e-0',
    ].map((text) => parseIpv6(text, 'compatible'));

    // Assess
    expect(refused).toEqual(Array(8).fill(undefined));
  });

  it('reads a dotted IPv4 tail, leniently as ipaddr.js did (zero-padded decimal, 0x hex), within 255', () => {
    // Act
    const tails = ['::ffff:1.2.3.4', '64:ff9b::01.02.03.010', '::ffff:0x7f.0.0.1'].map((text) => v6(text));
    const refused = ['::ffff:1.2.3.256', '::ffff:1.2.3', '::ffff:1.2.3.4.5', '1:2:3:4:5:6:7:1.2.3.4', '::ffff:1.2.3.0x100'].map((text) =>
      parseIpv6(text, 'compatible'),
    );

    // Assess
    expect(tails).toEqual(['::ffff:102:304', '64:ff9b::102:30a', '::ffff:7f00:1']);
    expect(refused).toEqual(Array(5).fill(undefined));
  });

  it('reads a tail right after a bare :: as IPv4-compatible or, for an allow-list, IPv4-mapped', () => {
    // Act
    const compatible = v6('::8.8.8.8', 'compatible');
    const mapped = v6('::8.8.8.8', 'mapped');

    // Assess
    expect(compatible).toBe('::808:808');
    expect(mapped).toBe('::ffff:808:808');
  });
});

describe('parseCidr and cidr', () => {
  it('reads an address and a prefix of up to 32 (IPv4) or 128 (IPv6) bits, zero-padded digits allowed', () => {
    // Act
    const read = ['10.0.0.0/8', '10.0.0.0/08', '1.2.3.4/32', '0.0.0.0/0', '::/0', '2001:db8::/128', '::1.2.3.4/96'].map((text) => {
      const [network, bits] = parseCidr(text)!;
      return `${network.toString()}/${bits}`;
    });

    // Assess
    expect(read).toEqual(['10.0.0.0/8', '10.0.0.0/8', '1.2.3.4/32', '0.0.0.0/0', '::/0', '2001:db8::/128', '::ffff:102:304/96']);
  });

  it.each(['1.2.3.4/33', '::/129', '1.2.3.4', '/8', '1.2.3.4/', '1.2.3.4/ 8', '1.2.3.4/-1', '1.2.3.4/8a', '01.2.3.4/8', 'a.b.c.d/8'])(
    'refuses %j',
    (text) => {
      // Act
      const parsed = parseCidr(text);

      // Assess
      expect(parsed).toBeUndefined();
    },
  );

  it('cidr throws for a CIDR this codebase mistyped, naming it', () => {
    // Act, Assess
    expect(() => cidr('10.0.0.0/33')).toThrow('not a CIDR: 10.0.0.0/33');
  });
});

describe('inCidr', () => {
  it('compares the prefix bit by bit, inside a byte too, and ignores host bits of the network', () => {
    // Prepare
    const network = cidr('172.16.0.0/12');
    const written = cidr('172.31.1.1/12');

    // Act
    const inside = ['172.16.0.0', '172.31.255.255'].map((text) => inCidr(parseIpv4(text)!, network));
    const outside = ['172.15.255.255', '172.32.0.0'].map((text) => inCidr(parseIpv4(text)!, network));
    const withHostBits = inCidr(parseIpv4('172.16.0.1')!, written);

    // Assess
    expect(inside).toEqual([true, true]);
    expect(outside).toEqual([false, false]);
    expect(withHostBits).toBe(true);
  });

  it('holds every address of its family at /0, one address at full length, and never one of the other family', () => {
    // Prepare
    const mapped = parseIpv6('::ffff:10.0.0.1', 'compatible')!;

    // Act, Assess
    expect(inCidr(parseIpv4('203.0.113.9')!, cidr('0.0.0.0/0'))).toBe(true);
    expect(inCidr(parseIpv4('10.0.0.1')!, cidr('10.0.0.1/32'))).toBe(true);
    expect(inCidr(parseIpv4('10.0.0.2')!, cidr('10.0.0.1/32'))).toBe(false);
    expect(inCidr(mapped, cidr('10.0.0.0/8'))).toBe(false);
    expect(inCidr(parseIpv4('10.0.0.1')!, cidr('::/0'))).toBe(false);
    expect(inCidr(parseIpv6('2001:db8::1', 'compatible')!, cidr('2001:db8::/33'))).toBe(true);
    expect(inCidr(parseIpv6('2001:db8:8000::1', 'compatible')!, cidr('2001:db8::/33'))).toBe(false);
  });
});

describe('rangeOf', () => {
  it.each([
    ['255.255.255.255', 'broadcast'],
    ['255.255.255.254', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['100.64.0.0', 'carrierGradeNat'],
    ['100.128.0.0', 'unicast'],
    ['192.175.48.1', 'as112'],
    ['8.8.8.8', 'unicast'],
    ['2001::1', 'teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'deprecatedOrchid'],
    ['2001:1ff::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:1.2.3.4', 'ipv4Mapped'],
    ['::ffff:0:1.2.3.4', 'rfc6145'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['fd00::1', 'uniqueLocal'],
    ['2606:4700::1', 'unicast'],
  ])('puts %s in %s (the first range of the table that holds it)', (address, expected) => {
    // Act
    const found = range(address);

    // Assess
    expect(found).toBe(expected);
  });
});
