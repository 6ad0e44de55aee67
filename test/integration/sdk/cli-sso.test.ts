import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { startCli } from '../../support/cli.ts';
import { ssoCall, startSsoStack, type SsoStack } from '../../support/sso-stack.ts';

/**
 * `secrets login --sso` against a real OpenID provider (oidc-provider): authorization code + PKCE on a loopback
 * redirect, completed in a browser; the session kept with mode 600 and used by later commands until it expires.
 */
const PASSWORD = 'tr0ub4dor&3';
let sso: SsoStack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let config: string;

beforeAll(async () => {
  sso = await startSsoStack();
  sso.provider.addPerson('ada', PASSWORD, { workspace_id: sso.stack.workspaceId, roles: ['admin'] });
  expect((await ssoCall(sso.stack, 'POST', '/api/v1/projects', sso.stack.apiKey, { name: 'Analytical Engine' })).status).toBe(201);
  ({ browser, close: closeBrowser } = await launchBrowser());
  config = mkdtempSync(join(tmpdir(), 'secrets-config-'));
});
afterAll(async () => {
  await closeBrowser?.();
  await sso?.close();
  if (config) rmSync(config, { recursive: true, force: true });
});

/** The CLI's environment: no credential of the caller's own, this test's config folder, the provider's CA trusted. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SECRETS_')));
  return {
    ...env,
    XDG_CONFIG_HOME: config,
    XDG_CACHE_HOME: join(config, 'cache'),
    NODE_EXTRA_CA_CERTS: sso.caFile,
    SECRETS_API_URL: sso.stack.baseUrl,
    ...extra,
  };
}

/** Starts `secrets …`; its output so far, and its end. */
function start(args: string[], env: NodeJS.ProcessEnv = cliEnv()) {
  return startCli(args, { env, stdin: null });
}

const secrets = (args: string[], env?: NodeJS.ProcessEnv) => start(args, env).done;
const sessionFile = () => join(config, 'secrets', 'session.json');

describe('secrets login --sso', () => {
  it('signs a person in through the browser, keeps the session with mode 600, and every command uses it until it expires; logout forgets it', async () => {
    const ssoEnv = cliEnv({
      SECRETS_SSO_ISSUER: sso.provider.issuer,
      SECRETS_SSO_CLIENT_ID: sso.cliClientId,
      SECRETS_SSO_RESOURCE: sso.resource,
    });
    const login = start(['login', '--sso'], ssoEnv);
    const url = await vi.waitFor(() => /^\s+(https:\/\/\S+)$/m.exec(login.out.stderr)?.[1] ?? Promise.reject(new Error('no address yet')), {
      timeout: 15_000,
    });
    const query = Object.fromEntries(new URL(url).searchParams);
    expect(query).toMatchObject({
      response_type: 'code',
      client_id: sso.cliClientId,
      code_challenge_method: 'S256',
      resource: sso.resource,
    });
    expect(query.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // A callback without this login's state is refused, and the login goes on waiting for its own.
    const forged = await fetch(`${query.redirect_uri}?code=forged&state=forged`);
    expect(forged.status).toBe(400);

    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const callbacks: string[] = [];
    page.on('request', (request) => void (request.url().startsWith(query.redirect_uri!) && callbacks.push(request.url())));
    await page.goto(url);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Signed in. You can close this tab').waitFor();
    await context.close();
    const result = await login.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("without this login's state was refused");
    expect(result.stderr).toMatch(/signed in as ada until .+; the session is kept in /);

    const mode = statSync(sessionFile()).mode & 0o777;
    expect(mode.toString(8)).toBe('600');
    expect((statSync(join(config, 'secrets')).mode & 0o777).toString(8)).toBe('700');
    const session = JSON.parse(readFileSync(sessionFile(), 'utf8')) as { accessToken: string; expiresAt: string; apiUrl: string };
    expect(session.apiUrl).toBe(sso.stack.baseUrl);
    const code = new URL(callbacks[0]!).searchParams.get('code')!;
    expect(code).toBeTruthy();
    for (const secret of [session.accessToken, code]) expect(result.stderr).not.toContain(secret);

    // No token given: the session is the credential.
    const listed = await secrets(['projects', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((p: { name: string }) => p.name)).toEqual(['Analytical Engine']);

    // Never sent to another API.
    const elsewhere = await secrets(['projects', 'list', '--api-url', 'http://127.0.0.1:9']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`is for the API at ${sso.stack.baseUrl}, not http://127.0.0.1:9`);

    // A session file others may read is not used.
    chmodSync(sessionFile(), 0o644);
    const open = await secrets(['projects', 'list']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('is not used: its mode is 644: group or others may read or write it');
    chmodSync(sessionFile(), 0o600);

    // Expired: refused before any request, saying to log in again; a token given still works (the session is the last source).
    writeFileSync(sessionFile(), JSON.stringify({ ...session, expiresAt: new Date(Date.now() - 60_000).toISOString() }));
    const expired = await secrets(['projects', 'list']);
    expect(expired.code).toBe(2);
    expect(expired.stderr).toMatch(/the SSO session of ada expired at .+: run `secrets login --sso` again/);
    expect((await secrets(['projects', 'list'], cliEnv({ SECRETS_TOKEN: sso.stack.apiKey }))).code).toBe(0);
    for (const run of [listed, elsewhere, open, expired]) expect(run.stderr).not.toContain(session.accessToken);

    const logout = await secrets(['logout']);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('signed out');
    expect(existsSync(sessionFile())).toBe(false);
    const after = await secrets(['projects', 'list']);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('a credential is required');
  });

  it('needs the provider and the client id, and takes no access key', async () => {
    const noIssuer = await secrets(['login', '--sso', '--client-id', sso.cliClientId]);
    expect(noIssuer.code).toBe(2);
    expect(noIssuer.stderr).toContain('--sso needs the identity provider: --issuer or SECRETS_SSO_ISSUER');
    const noClient = await secrets(['login', '--sso', '--issuer', sso.provider.issuer]);
    expect(noClient.stderr).toContain('--client-id or SECRETS_SSO_CLIENT_ID');
    const both = await secrets([
      'login',
      '--sso',
      '--issuer',
      sso.provider.issuer,
      '--client-id',
      sso.cliClientId,
      '--access-key-id',
      'ak_x',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--sso signs a person in: it takes no --access-key-id');
  });

  it('reports a sign-in the person cancels at the provider, and keeps no session', async () => {
    const login = start(['login', '--sso', '--issuer', sso.provider.issuer, '--client-id', sso.cliClientId, '--resource', sso.resource]);
    const url = await vi.waitFor(() => /^\s+(https:\/\/\S+)$/m.exec(login.out.stderr)?.[1] ?? Promise.reject(new Error('no address yet')), {
      timeout: 15_000,
    });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('The sign-in did not succeed').waitFor();
    await context.close();
    const result = await login.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `sign-in with ${sso.provider.issuer} failed: the identity provider refused the sign-in: access_denied (the person cancelled the sign-in)`,
    );
    expect(existsSync(sessionFile())).toBe(false);
  });
});
