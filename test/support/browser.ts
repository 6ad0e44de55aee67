import { inject } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Headless Chromium for the console's browser tests: the build that ships inside the `@sparticuz/chromium` npm
 * package (nothing is downloaded outside the registry), or `CHROMIUM_PATH` when set. Flags keep it off the network
 * this machine does not have (no background connections, updates or sync).
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  // Unpacked once for the run by the integration setup (test/integration/global-setup.ts), never by two workers at once.
  const executablePath = inject('chromiumPath');
  // Playwright gives the browser a fresh temporary profile of its own, and removes it on close.
  const browser = await chromium.launch({ executablePath, headless: true, args: FLAGS });
  return { browser, close: () => browser.close() };
}

/** The console's address on the local stack. */
export function consoleUrl(path = '/console/'): string {
  return `${inject('stack').baseUrl}${path}`;
}

/** A fresh browser context (its own storage) on the console, signed in with `token` through the sign-in form. */
export async function signedIn(
  browser: Browser,
  token: string,
  path = '/console/projects',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  await page.goto(consoleUrl(path));
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

/** What the page keeps in both storages, as one string: a value must never be in it. */
export async function storages(page: Page): Promise<string> {
  return page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
}

/**
 * A fresh page opening `path` directly, as a bookmark opens in a tab already signed in (the token in `sessionStorage`,
 * where sign-in keeps it), with every API request it sends recorded from the start, as `METHOD /path?query`.
 */
export async function openedDirectly(
  browser: Browser,
  token: string,
  path: string,
): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  const context = await browser.newContext();
  await context.addInitScript((kept) => sessionStorage.setItem('secrets-console.token', kept), token);
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) requests.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  await page.goto(consoleUrl(path));
  return { context, page, requests };
}
