import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checksumHolds, hashToken, issuedTokenShape, issueToken, tokenPrefix } from '../../../shared/access/tokens.ts';
import { deriveServiceMacs } from '../../../shared/platform/crypto/mac-key.ts';
import { TEST_MACS } from '../support/fakes.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

/** Whether the token is of the issued form and its keyed checksum holds under `macs`. */
const accepted = (token: string, macs = TEST_MACS) => {
  const shape = issuedTokenShape(token);
  return shape !== undefined && checksumHolds(macs, shape);
};

describe('issued tokens', () => {
  it('embed the workspace and 256 random bits, and parse back', () => {
    const apiKey = issueToken(TEST_MACS, 'apiKey', WS);
    const machine = issueToken(TEST_MACS, 'machine', WS);
    expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}[A-Za-z0-9_-]{8}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
    expect(machine).toMatch(/^st_[A-Za-z0-9_-]{43}[A-Za-z0-9_-]{8}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
    expect(machine.slice(0, 10)).not.toBe(issueToken(TEST_MACS, 'machine', WS).slice(0, 10));
    expect(issuedTokenShape(apiKey)).toMatchObject({ kind: 'apiKey', workspaceId: WS });
    expect(issuedTokenShape(machine)).toMatchObject({ kind: 'machine', workspaceId: WS });
    expect([accepted(apiKey), accepted(machine)]).toEqual([true, true]);
  });

  it('refuse anything malformed', () => {
    const token = issueToken(TEST_MACS, 'apiKey', WS);
    for (const bad of [
      '',
      'sk_live_',
      `${token}x`,
      token.slice(0, -1),
      token.replace('sk_live_', 'sk_test_'),
      `sk_live_${'a'.repeat(51)}${'I'.repeat(26)}`,
    ]) {
      expect(issuedTokenShape(bad)).toBeUndefined();
    }
  });

  it('hash to SHA-256 hex and show a 10-character prefix', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokenPrefix('sk_live_0123456')).toBe('sk_live_01');
  });

  it('carry a keyed checksum: any changed character, a made-up token, or another key fails it', () => {
    // Prepare
    const token = issueToken(TEST_MACS, 'machine', WS);
    const random = token.slice(3, 46);
    const flip = (at: number) => `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    const otherDeployment = deriveServiceMacs({ token: Buffer.alloc(32, 8) });
    // Act / Assess: a change in the random part, the checksum, the prefix or the workspace is caught
    for (const at of [3, 20, 45, 46, 53, 60]) expect(accepted(flip(at)), `character ${at}`).toBe(false);
    expect(accepted(`sk_live_${token.slice(3)}`)).toBe(false);
    expect(accepted(`st_${random}AAAAAAAA${WS.slice(3)}`)).toBe(false);
    expect(accepted(token, otherDeployment)).toBe(false);
  });

  it('refuse both forms issued before keyed checksums: no checksum, and the unkeyed CRC32 one', () => {
    // Prepare: the README's old test vector, a valid token of the CRC32 form, and the form without a checksum
    const crcForm = `sk_live_q3Fh_yT8u-Zk2LmN7pR0sW5vX9aBcDeGiJoQxY1z4E60Q9SeQ${WS.slice(3)}`;
    const legacy = `sk_live_${'a'.repeat(43)}${WS.slice(3)}`;
    // Act / Assess
    expect(crc32('q3Fh_yT8u-Zk2LmN7pR0sW5vX9aBcDeGiJoQxY1z4E6')).toBe(386439826);
    expect(issuedTokenShape(crcForm)).toBeUndefined();
    expect(issuedTokenShape(legacy)).toBeUndefined();
  });

  it("match the README's regular expressions for secret scanners, and the older forms don't", () => {
    // Prepare: the Credentials section, as a secret scanner's author reads it
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Credentials'), readme.indexOf('\n## ', readme.indexOf('## Credentials') + 1));
    const published = (name: string) => {
      const row = new RegExp(`^\\| ${name} \\| \`([^\`]+)\`[^|]*\\| (\\d+) \\|$`, 'm').exec(section);
      // Matched whole, as the README asks: no token character right before or after.
      return { pattern: new RegExp(`(?<![A-Za-z0-9_-])${row?.[1]}(?![A-Za-z0-9_-])`), length: Number(row?.[2]) };
    };
    // Act
    const apiKey = issueToken(TEST_MACS, 'apiKey', WS);
    const machine = issueToken(TEST_MACS, 'machine', WS);
    // Assess
    for (const [name, token] of [
      ['API key', apiKey],
      ['machine token', machine],
    ] as const) {
      expect(published(name).pattern.exec(`token=${token}\n`)?.[0]).toBe(token);
      expect(token).toHaveLength(published(name).length);
    }
    const crcForm = `st_${'a'.repeat(43)}0Q9SeQ${WS.slice(3)}`;
    expect(crcForm).not.toMatch(published('machine token').pattern);
    expect(`st_${'a'.repeat(43)}${WS.slice(3)}`).not.toMatch(published('machine token').pattern);
  });
});
