import { describe, expect, it } from 'vitest';
import { hashToken, issueToken, parseIssuedToken, tokenPrefix } from '../../shared/auth/tokens.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

describe('issued tokens', () => {
  it('embed the workspace and 256 random bits, and parse back', () => {
    const apiKey = issueToken('apiKey', WS);
    const machine = issueToken('machine', WS);
    expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
    expect(machine).toMatch(/^st_[A-Za-z0-9_-]{43}01JABCDEFGHJKMNPQRSTVWXYZ0$/);
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
});
