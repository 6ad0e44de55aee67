import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, storages } from '../support/browser.ts';
import { ssoCall, startSsoStack, type SsoStack } from '../support/sso-stack.ts';

/**
 * The console's sign-in with the identity provider (issue 28): OpenID Connect authorization code + PKCE against a
 * real provider (oidc-provider), on a stack of its own that trusts that provider's access tokens.
 */
let sso: SsoStack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  sso = await startSsoStack();
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
      scope: 'openid',
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
