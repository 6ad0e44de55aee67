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

  it('answers a token the API refuses by returning to sign-in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(consoleUrl('/console/projects'));
    await page.getByLabel('Token').fill('sk_live_not-a-real-token-at-all');
    const refused = page.waitForResponse((response) => response.url().includes('/api/v1/projects') && response.status() === 401);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The first request answers 401: the console forgets the token and asks for another.
    await refused;
    await page.getByLabel('Token').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await context.close();
  });
});
