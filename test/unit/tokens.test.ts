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
});
