import { mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeSession, saveSession, sessionPath, sessionToken, type SsoSession } from '../../../sdk/src/cli-session.ts';

/** The session file of `secrets login --sso`: where it lives, how it is written, and when its token may be used. */
const NOW = Date.parse('2030-01-01T00:00:00Z');
const session = (overrides: Partial<SsoSession> = {}): SsoSession => ({
  version: 1,
  apiUrl: 'https://api.example.com',
  issuer: 'https://login.example.com',
  clientId: 'secrets-cli',
  subject: 'ada',
  accessToken: 'eyJ.the-token.sig',
  expiresAt: new Date(NOW + 3_600_000).toISOString(),
  ...overrides,
});
const fresh = () => join(mkdtempSync(join(tmpdir(), 'session-')), 'secrets', 'session.json');

describe('the SSO session file', () => {
  it('lives under XDG_CONFIG_HOME when it is absolute, else under ~/.config', () => {
    expect(sessionPath({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/secrets/session.json');
    expect(sessionPath({ XDG_CONFIG_HOME: 'relative' })).toBe(join(homedir(), '.config', 'secrets', 'session.json'));
    expect(sessionPath({})).toBe(join(homedir(), '.config', 'secrets', 'session.json'));
  });

  it('is written with mode 600 in a folder of mode 700, and removed by logout', () => {
    const file = fresh();
    saveSession(session(), file);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(join(file, '..')).mode & 0o777).toString(8)).toBe('700');
    expect(JSON.parse(readFileSync(file, 'utf8')).accessToken).toBe('eyJ.the-token.sig');
    expect(removeSession(file)).toBe(true);
    expect(removeSession(file)).toBe(false);
  });

  it('gives its token to the API it was made for, before it expires; nothing when there is no session', () => {
    const file = fresh();
    expect(sessionToken('https://api.example.com', file, NOW)).toBeUndefined();
    saveSession(session(), file);
    expect(sessionToken('https://api.example.com/', file, NOW)).toBe('eyJ.the-token.sig');
  });

  it('refuses it for another API, once expired (or within 30 s of it), and when it is a symbolic link; never naming the token', () => {
    const file = fresh();
    saveSession(session(), file);
    const refusals = [
      () => sessionToken('https://evil.example.com', file, NOW),
      () => sessionToken('https://api.example.com', file, NOW + 3_600_000 - 10_000),
    ];
    const link = join(file, '..', 'link.json');
    symlinkSync(file, link);
    refusals.push(() => sessionToken('https://api.example.com', link, NOW));
    const messages = refusals.map((refusal) => {
      try {
        refusal();
      } catch (error) {
        return (error as Error).message;
      }
      return 'not refused';
    });
    expect(messages[0]).toContain('is for the API at https://api.example.com, not https://evil.example.com');
    expect(messages[1]).toContain('the SSO session of ada expired at');
    expect(messages[2]).toContain('is not used: it is a symbolic link');
    for (const message of messages) expect(message).not.toContain('the-token');
  });
});
