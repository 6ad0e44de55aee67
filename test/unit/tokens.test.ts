import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashToken, issueToken, parseIssuedToken, tokenPrefix } from '../../shared/auth/tokens.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

describe('issued tokens', () => {
  it('embed the workspace and 256 random bits, and parse back', () => {
    const apiKey = issueToken('apiKey', WS);
    const machine = issueToken('machine', WS);
    expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
    expect(machine).toMatch(/^st_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
    expect(machine.slice(0, 10)).not.toBe(issueToken('machine', WS).slice(0, 10));
    expect(parseIssuedToken(apiKey)).toEqual({ kind: 'apiKey', workspaceId: WS });
    expect(parseIssuedToken(machine)).toEqual({ kind: 'machine', workspaceId: WS });
    expect(issueToken('apiKey', WS)).not.toBe(apiKey);
  });

  it('refuse anything malformed', () => {
    const token = issueToken('apiKey', WS);
    for (const bad of ['', 'sk_live_', `${token}x`, token.slice(0, -1), token.replace('sk_live_', 'sk_test_'), `sk_live_${'a'.repeat(43)}${'I'.repeat(26)}`]) {
      expect(parseIssuedToken(bad)).toBeUndefined();
    }
  });

  it('hash to SHA-256 hex and show a 10-character prefix', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokenPrefix('sk_live_0123456')).toBe('sk_live_01');
  });

  it('carry a checksum of their random part: any changed character, or a made-up token, fails it', () => {
    // Prepare
    const token = issueToken('machine', WS);
    const random = token.slice(3, 46);
    const flip = (at: number) => `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    // Act / Assess: a change in the random part or in the checksum itself is caught
    for (const at of [3, 20, 45, 46, 51]) expect(parseIssuedToken(flip(at)), `character ${at}`).toBeUndefined();
    expect(parseIssuedToken(`st_${random}AAAAAA${WS.slice(3)}`)).toBeUndefined();
  });

  it('still accept the form issued before checksums (no checksum, 69 characters after the prefix)', () => {
    const legacy = `sk_live_${'a'.repeat(43)}${WS.slice(3)}`;
    expect(parseIssuedToken(legacy)).toEqual({ kind: 'apiKey', workspaceId: WS });
  });

  it('compute the checksum the README publishes (its test vector) and match the README\'s regular expressions', () => {
    // Prepare: the Credentials section, as a secret scanner's author reads it
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Credentials'), readme.indexOf('\n## ', readme.indexOf('## Credentials') + 1));
    const vector = /random part\s`([^`]+)`[^`]*CRC32 ([0-9]+)[^`]*checksum `([^`]+)`[^`]*`ws_[^`]+`[^`]*`(sk_live_[^`]+)`/.exec(section);
    const published = (name: string) => {
      const row = new RegExp(`^\\| ${name} \\| \`([^\`]+)\`[^|]*\\| (\\d+) \\|$`, 'm').exec(section);
      // Matched whole, as the README asks: no token character right before or after.
      return { pattern: new RegExp(`(?<![A-Za-z0-9_-])${row?.[1]}(?![A-Za-z0-9_-])`), length: Number(row?.[2]) };
    };
    // Act
    const apiKey = issueToken('apiKey', WS);
    const machine = issueToken('machine', WS);
    // Assess: the worked example is a real token, and a scanner's regex finds exactly what we issue
    expect(vector?.slice(1)).toEqual(['q3Fh_yT8u-Zk2LmN7pR0sW5vX9aBcDeGiJoQxY1z4E6', '386439826', '0Q9SeQ', `sk_live_q3Fh_yT8u-Zk2LmN7pR0sW5vX9aBcDeGiJoQxY1z4E60Q9SeQ${WS.slice(3)}`]);
    expect(parseIssuedToken(vector![4]!)).toEqual({ kind: 'apiKey', workspaceId: WS });
    expect(parseIssuedToken(vector![4]!.replace('0Q9SeQ', '0Q9SeR'))).toBeUndefined();
    for (const [name, token] of [['API key', apiKey], ['machine token', machine]] as const) {
      expect(published(name).pattern.exec(`token=${token}\n`)?.[0]).toBe(token);
      expect(token).toHaveLength(published(name).length);
    }
    const legacy = `st_${'a'.repeat(43)}${WS.slice(3)}`;
    expect(published('machine token, before checksums').pattern.exec(`"${legacy}"`)?.[0]).toBe(legacy);
    expect(legacy).toHaveLength(published('machine token, before checksums').length);
    expect(legacy).not.toMatch(published('machine token').pattern);
    // When a new token's checksum happens to be all ULID characters, only the boundary keeps the old form from
    // matching its first 72 characters.
    const lookalike = Array.from({ length: 2_000 }, () => issueToken('machine', WS)).find((token) => /^[0-9A-HJKMNP-TV-Z]{6}$/.test(token.slice(46, 52)));
    expect(lookalike).toBeDefined();
    expect(lookalike).not.toMatch(published('machine token, before checksums').pattern);
  });
});
