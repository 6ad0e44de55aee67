import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, storages } from '../support/browser.ts';
import { ssoCall, startSsoStack, type SsoStack } from '../support/sso-stack.ts';

/**
 * The console's sign-in with the identity provider (issue 28): OpenID Connect authorization code + PKCE against a
 * real provider (oidc-provider), on a stack of its own that trusts that provider's access tokens. The provider's
 * access tokens last 20 s here, so that a session's renewal with its refresh token is seen within a test.
 */
const ACCESS_TOKEN_TTL_SECONDS = 20;
let sso: SsoStack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  sso = await startSsoStack({ accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS });
  sso.provider.addPerson('grace', PASSWORD, { workspace_id: sso.stack.workspaceId, roles: ['developer'] });
  expect((await ssoCall(sso.stack, 'POST', '/api/v1/projects', sso.stack.apiKey, { name: 'Ledger' })).status).toBe(201);
  ({ browser, close: closeBrowser } = await launchBrowser());
});
afterAll(async () => {
  await closeBrowser?.();
  await sso?.close();
});

/** A fresh context that trusts the provider's test certificate, recording every address it asks for. */
async function freshPage(): Promise<{ context: BrowserContext; page: Page; requested: string[] }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const requested: string[] = [];
  context.on('request', (request) => void requested.push(request.url()));
  return { context, page: await context.newPage(), requested };
}

const host = () => new URL(sso.provider.issuer).host;

/** Signs grace in through the provider, from the console's sign-in page to the projects. */
async function signInAsGrace(page: Page): Promise<void> {
  await page.goto(`${sso.stack.baseUrl}/console/`);
  await page.getByRole('button', { name: `Sign in with ${host()}` }).click();
  await page.getByLabel('Username').fill('grace');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('link', { name: 'Ledger' }).waitFor();
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };

describe('the console signs a person in with the identity provider', () => {
  it('goes through the provider and back signed in, lists projects with its token, keeps it out of URLs and localStorage, and signs out', async () => {
    const { context, page, requested } = await freshPage();
    await page.goto(`${sso.stack.baseUrl}/console/`);
    await page.getByRole('button', { name: `Sign in with ${host()}` }).click();
    await page.waitForURL((url) => url.origin === sso.provider.issuer);
    const authorization = new URL(requested.find((url) => url.startsWith(`${sso.provider.issuer}/auth`))!);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: sso.consoleClientId,
      redirect_uri: `${sso.stack.baseUrl}/console/`,
      code_challenge_method: 'S256',
      resource: sso.resource,
      scope: 'openid offline_access',
    });
    await page.getByLabel('Username').fill('grace');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('link', { name: 'Ledger' }).waitFor();
    // The role comes from the provider's `roles` claim: a developer, so no admin sections.
    await expect.poll(() => page.locator('.role').textContent()).toBe('developer');
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(page.url()).toBe(`${sso.stack.baseUrl}/console/projects`);
    const token = (await page.evaluate(() => sessionStorage.getItem('secrets-console.token')))!;
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(header.typ).toBe('at+jwt');
    expect(claims).toMatchObject({ iss: sso.provider.issuer, aud: sso.resource, sub: 'grace', workspace_id: sso.stack.workspaceId });
    // The token is the API's: it lists the projects outside the browser too.
    expect((await ssoCall(sso.stack, 'GET', '/api/v1/projects', token)).body.data.map((p: { name: string }) => p.name)).toEqual(['Ledger']);
    // In no address, no localStorage; the sign-in's own state (verifier, nonce) is gone once the code is exchanged.
    expect(requested.filter((url) => url.includes(token))).toEqual([]);
    const kept = JSON.parse(await storages(page)) as { local: Record<string, string>; session: Record<string, string> };
    expect(kept.local).toEqual({});
    expect(kept.session['secrets-console.token']).toBe(token);
    expect(Object.keys(kept.session).filter((key) => key.includes('oidc'))).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('secrets-console.')))).toEqual([]);
    await context.close();
  });

  it('renews the access token with the refresh token before it expires, so the session outlives it; the refresh token is in no storage', async () => {
    const { context, page } = await freshPage();
    // Every answer of the provider's token endpoint: the code exchange, then each renewal.
    const answers: { grantType: string | null; refreshToken?: string; accessToken?: string }[] = [];
    page.on('response', async (response) => {
      if (response.url() !== `${sso.provider.issuer}/token` || response.request().method() !== 'POST') return;
      const grantType = new URLSearchParams(response.request().postData() ?? '').get('grant_type');
      const body = (await response.json().catch(() => ({}))) as { refresh_token?: string; access_token?: string };
      answers.push({ grantType, refreshToken: body.refresh_token, accessToken: body.access_token });
    });
    await signInAsGrace(page);
    const first = (await page.evaluate(() => sessionStorage.getItem('secrets-console.token')))!;
    expect(answers).toEqual([{ grantType: 'authorization_code', refreshToken: expect.any(String), accessToken: first }]);

    // Renewed at three quarters of the token's life, without a reload or a sign-in.
    const renewed = await vi.waitFor(
      async () => {
        const now = (await page.evaluate(() => sessionStorage.getItem('secrets-console.token')))!;
        if (now === first) throw new Error('not renewed yet');
        return now;
      },
      { timeout: ACCESS_TOKEN_TTL_SECONDS * 1000, interval: 500 },
    );
    // The listener records the answer once its body is read, which can be just after the console stored the token.
    await vi.waitFor(() => expect(answers[1]).toMatchObject({ grantType: 'refresh_token', accessToken: renewed }), {
      timeout: 5_000,
      interval: 100,
    });
    expect(claimsOf(renewed).exp).toBeGreaterThan(claimsOf(first).exp);

    // Past the first token's end: the API refuses it, and the console goes on with the renewed one.
    await vi.waitFor(() => expect(Date.now() / 1000).toBeGreaterThan(claimsOf(first).exp + 1), { timeout: 30_000, interval: 500 });
    expect((await ssoCall(sso.stack, 'GET', '/api/v1/projects', first)).status).toBe(401);
    const sent = page.waitForRequest((request) => request.url().includes('/api/v1/projects?'));
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    const request = await sent;
    await page.getByRole('link', { name: 'Ledger' }).waitFor();
    const carried = (await request.allHeaders()).authorization!;
    expect(carried).not.toBe(`Bearer ${first}`);
    expect((await ssoCall(sso.stack, 'GET', '/api/v1/projects', carried.slice('Bearer '.length))).status).toBe(200);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);

    // No refresh token the provider gave is in any storage or address.
    const kept = await storages(page);
    for (const answer of answers) if (answer.refreshToken) expect(kept).not.toContain(answer.refreshToken);
    expect(page.url()).toBe(`${sso.stack.baseUrl}/console/projects`);
    await context.close();
  });

  it('shows plainly a sign-in the person cancels at the provider, and takes the answer out of the address', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${sso.stack.baseUrl}/console/`);
    await page.getByRole('button', { name: `Sign in with ${host()}` }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('the identity provider refused the sign-in: access_denied (the person cancelled the sign-in)');
    expect(page.url()).toBe(`${sso.stack.baseUrl}/console/`);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await context.close();
  });

  it('refuses an answer this tab did not ask for (its state does not match), without exchanging its code', async () => {
    const { context, page, requested } = await freshPage();
    // A forged redirect back, as a page elsewhere could send: no sign-in was started in this tab.
    await page.goto(`${sso.stack.baseUrl}/console/?code=forged-code&state=forged-state`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('this sign-in was not started in this tab (its state does not match)');
    expect(page.url()).toBe(`${sso.stack.baseUrl}/console/`);
    expect(requested.filter((url) => url.startsWith(sso.provider.issuer))).toEqual([]);
    await context.close();
  });
});
