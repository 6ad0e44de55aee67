import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call, newWorkspace } from '../support/api.ts';
import { consoleUrl, launchBrowser, signedIn, storages } from '../support/browser.ts';

/** The console's shell in a real browser: served with its security headers, signed in with a token, signed out. */
let browser: Browser;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
});
afterAll(async () => {
  await close();
});

describe('the console shell', () => {
  it('is served under /console/ with a strict Content-Security-Policy, any path under it answering the app', async () => {
    for (const path of ['/console/', '/console/projects', '/console/environments/env_unknown', '/console/no/such/view']) {
      const response = await fetch(consoleUrl(path));
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html).toContain('<div id="app"></div>');
      // No inline script: the only script is the hashed bundle.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('signs in with a pasted token, keeps it in sessionStorage only, and signs out clearing it', async () => {
    const ws = await newWorkspace();
    await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Payments API' } });
    const { context, page } = await signedIn(browser, ws.apiKey);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByRole('link', { name: 'Payments API' }).waitFor();
    expect(page.url()).toBe(consoleUrl('/console/projects'));
    const kept = await storages(page);
    expect(kept).toContain(ws.apiKey);
    expect(JSON.parse(kept).local).toEqual({});
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    expect(await storages(page)).not.toContain(ws.apiKey);
    await context.close();
  });

  it("shows the API's code and message on the sign-in page when a pasted token is refused, keeps the token nowhere, and takes another", async () => {
    const ws = await newWorkspace();
    const notIssued = 'sk_live_not-a-real-token-at-all';
    const refusal = await call('GET', '/api/v1/projects', { token: notIssued });
    expect(refusal.status).toBe(401);
    expect(refusal.body.error.code).toBe('AUTH_REQUIRED');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(consoleUrl('/console/projects'));
    await page.getByLabel('Token').fill(notIssued);
    await page.getByRole('button', { name: 'Sign in' }).click();

    const shown = page.getByRole('alert').filter({ hasText: 'AUTH_REQUIRED' });
    await shown.waitFor();
    expect(await shown.textContent()).toContain(refusal.body.error.message);
    expect(await storages(page)).not.toContain(notIssued);
    expect(await page.getByLabel('Token').inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);

    // A second try, with a token the API takes, signs in and leaves the refusal behind.
    await page.getByLabel('Token').fill(ws.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(await page.getByText('AUTH_REQUIRED').count()).toBe(0);
    await context.close();
  });

  it("returns to sign-in with the API's code and message when the token is refused later in the session (its key revoked)", async () => {
    const ws = await newWorkspace();
    const project = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'Payments API' } })).body.data;
    const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'console session' } })).body.data;
    const { context, page } = await signedIn(browser, key.token);
    await page.getByRole('link', { name: 'Payments API' }).waitFor();
    expect((await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })).status).toBe(200);
    const refusal = await call('GET', `/api/v1/projects/${project.id}/environments`, { token: key.token });
    expect(refusal.status).toBe(401);

    await page.getByRole('link', { name: 'Payments API' }).click();
    const shown = page.getByRole('alert').filter({ hasText: 'AUTH_REQUIRED' });
    await shown.waitFor();
    expect(await shown.textContent()).toContain(refusal.body.error.message);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await storages(page)).not.toContain(key.token);

    // Signed in again, the person is where the session ended.
    await page.getByLabel('Token').fill(ws.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Payments API' }).waitFor();
    expect(page.url()).toBe(consoleUrl(`/console/projects/${project.id}`));
    await context.close();
  });
});
