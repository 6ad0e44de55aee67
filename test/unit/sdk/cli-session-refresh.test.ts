import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freshSessionToken, saveSession, sessionFetch, sessionToken, type Renew, type SsoSession } from '../../../sdk/src/cli-session.ts';
import { refreshSsoTokens, SsoError } from '../../../sdk/src/sso.ts';

/**
 * The renewal of the session of `secrets login --sso`: a token about to expire is renewed with the refresh token
 * (the refresh_token grant at the provider's token endpoint) before a command sends it, and the session file keeps
 * the new tokens; a refused renewal says to sign in again, never naming a token.
 */
const API = 'https://api.example.com';
const NOW = Date.parse('2030-01-01T00:00:00Z');
const session = (overrides: Partial<SsoSession> = {}): SsoSession => ({
  version: 1,
  apiUrl: API,
  issuer: 'https://login.example.com',
  clientId: 'secrets-cli',
  subject: 'ada',
  accessToken: 'eyJ.old-access.sig',
  expiresAt: new Date(NOW + 3_600_000).toISOString(),
  refreshToken: 'old-refresh',
  resource: 'https://api.secrets.test/',
  ...overrides,
});
const fileWith = (saved: SsoSession) => {
  const file = join(mkdtempSync(join(tmpdir(), 'session-')), 'secrets', 'session.json');
  saveSession(saved, file);
  return file;
};
const renewed: Renew = async () => ({ accessToken: 'eyJ.new-access.sig', expiresAt: NOW + 600_000, refreshToken: 'new-refresh' });

describe('renewing the SSO session', () => {
  it('sends a token with more than a minute left as it is, without asking the provider', async () => {
    // Prepare
    const renew = vi.fn(renewed);
    const file = fileWith(session({ expiresAt: new Date(NOW + 120_000).toISOString() }));

    // Act
    const token = await freshSessionToken(API, file, () => NOW, renew);

    // Assess
    expect(token).toBe('eyJ.old-access.sig');
    expect(renew).not.toHaveBeenCalled();
  });

  it('renews a token about to expire (or expired) with the refresh token, and keeps the new tokens in the file', async () => {
    // Prepare
    const renew = vi.fn(renewed);
    const file = fileWith(session({ expiresAt: new Date(NOW - 60_000).toISOString() }));

    // Act
    const listed = sessionToken(API, file, NOW);
    const token = await freshSessionToken(API, file, () => NOW, renew);

    // Assess
    expect(listed).toBe('eyJ.old-access.sig');
    expect(token).toBe('eyJ.new-access.sig');
    expect(renew).toHaveBeenCalledWith({
      issuer: 'https://login.example.com',
      clientId: 'secrets-cli',
      resource: 'https://api.secrets.test/',
      refreshToken: 'old-refresh',
    });
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SsoSession;
    expect(saved).toMatchObject({
      accessToken: 'eyJ.new-access.sig',
      refreshToken: 'new-refresh',
      expiresAt: new Date(NOW + 600_000).toISOString(),
      subject: 'ada',
    });
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
  });

  it('says to sign in again when the provider refuses the refresh token, naming no token', async () => {
    // Prepare
    const file = fileWith(session({ expiresAt: new Date(NOW + 10_000).toISOString() }));
    const refuse: Renew = async () => {
      throw new SsoError('the identity provider refused the renewal: invalid_grant (grant request is invalid)', true);
    };

    // Act
    const refusal = await freshSessionToken(API, file, () => NOW, refuse).catch((error: Error) => error);

    // Assess
    expect((refusal as Error).message).toMatch(
      /^the SSO session of ada expired at .+ and could not be renewed \(.*invalid_grant.*\): run `secrets login --sso` again$/,
    );
    for (const secret of ['old-refresh', 'old-access']) expect((refusal as Error).message).not.toContain(secret);
  });

  it('keeps a token that is still good when the provider cannot be reached, and refuses an expired one', async () => {
    // Prepare
    const unreachable: Renew = async () => {
      throw new SsoError('the identity provider could not be reached at https://login.example.com (ECONNREFUSED)');
    };
    const soon = fileWith(session({ expiresAt: new Date(NOW + 45_000).toISOString() }));
    const gone = fileWith(session({ expiresAt: new Date(NOW - 1_000).toISOString() }));

    // Act
    const kept = await freshSessionToken(API, soon, () => NOW, unreachable);
    const refusal = await freshSessionToken(API, gone, () => NOW, unreachable).catch((error: Error) => error);

    // Assess
    expect(kept).toBe('eyJ.old-access.sig');
    expect((refusal as Error).message).toContain('could not be renewed (the identity provider could not be reached');
  });

  it('refuses an expired session without a refresh token before any request, as before', () => {
    // Prepare
    const file = fileWith(session({ refreshToken: undefined, expiresAt: new Date(NOW - 1_000).toISOString() }));

    // Act
    const refusal = (() => {
      try {
        return sessionToken(API, file, NOW);
      } catch (error) {
        return (error as Error).message;
      }
    })();

    // Assess
    expect(refusal).toMatch(/the SSO session of ada expired at .+: run `secrets login --sso` again/);
  });

  it('gives every request of a command the renewed token, renewing once for all of them', async () => {
    // Prepare
    const renew = vi.fn(renewed);
    const file = fileWith(session({ expiresAt: new Date(Date.now() + 5_000).toISOString() }));
    const sent: (string | null)[] = [];
    const api: typeof fetch = async (input) => {
      sent.push((input as Request).headers.get('authorization'));
      return new Response('{}', { status: 200 });
    };
    const send = sessionFetch(API, { file, renew, fetch: api });

    // Act
    await Promise.all([send(`${API}/api/v1/projects`), send(`${API}/api/v1/search/secrets`)]);

    // Assess
    expect(sent).toEqual(['Bearer eyJ.new-access.sig', 'Bearer eyJ.new-access.sig']);
    expect(renew).toHaveBeenCalledTimes(1);
  });
});

describe("the refresh_token grant at the provider's token endpoint", () => {
  let server: Server | undefined;
  afterEach(async () => {
    const running = server;
    server = undefined;
    if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
  });

  /** A provider on loopback: its discovery document, and a token endpoint that answers `answer` and records each grant. */
  async function provider(answer: { status: number; body: Record<string, unknown> }) {
    const grants: Record<string, string>[] = [];
    server = createServer(async (request, response) => {
      const issuer = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
      if (request.url === '/.well-known/openid-configuration') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token` }));
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      grants.push(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, grants };
  }

  it('posts the refresh token with the client id and resource, and answers the new tokens', async () => {
    // Prepare
    const exp = Math.floor(Date.now() / 1000) + 300;
    const access = `e30.${Buffer.from(JSON.stringify({ sub: 'ada', exp })).toString('base64url')}.sig`;
    const idp = await provider({
      status: 200,
      body: { access_token: access, expires_in: 600, refresh_token: 'rotated', token_type: 'Bearer' },
    });

    // Act
    const tokens = await refreshSsoTokens({ issuer: idp.issuer, clientId: 'secrets-cli', resource: 'https://api/', refreshToken: 'held' });

    // Assess
    expect(idp.grants).toEqual([
      { grant_type: 'refresh_token', refresh_token: 'held', client_id: 'secrets-cli', resource: 'https://api/' },
    ]);
    expect(tokens).toEqual({ accessToken: access, expiresAt: exp * 1000, subject: 'ada', refreshToken: 'rotated' });
  });

  it('keeps the refresh token held when the provider does not rotate it, and marks invalid_grant as final', async () => {
    // Prepare
    const kept = await provider({ status: 200, body: { access_token: 'opaque', expires_in: 60 } });
    const held = await refreshSsoTokens({ issuer: kept.issuer, clientId: 'c', refreshToken: 'held' });
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const refused = await provider({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });

    // Act
    const refusal = await refreshSsoTokens({ issuer: refused.issuer, clientId: 'c', refreshToken: 'held' }).catch(
      (error: SsoError) => error,
    );

    // Assess
    expect(held.refreshToken).toBe('held');
    expect(refusal).toBeInstanceOf(SsoError);
    expect((refusal as SsoError).final).toBe(true);
    expect((refusal as SsoError).message).toBe('the identity provider refused the renewal: invalid_grant (grant request is invalid)');
  });
});
