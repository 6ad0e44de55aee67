import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, openedDirectly, signedIn, storages } from '../support/browser.ts';
import { newEnvironment } from '../support/secrets.ts';

/**
 * The secrets side of the console in a real browser, over the real local stack: one row per key, reveal in the row
 * (audited, nowhere but the row, hidden again), new secrets and versions checked with If-Match, compare, rollback,
 * delete and restore, what a viewer is offered, and an environment of 1,000 secrets. Values are obvious samples.
 */
let browser: Browser;
let close: () => Promise<void>;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  ws = await newWorkspace();
});
afterAll(() => close());

const SHOTS = 'docs/console';
/** The browser globals the in-page measurements use (this project compiles with Node's types, not the DOM's). */
type InPage = {
  document: {
    querySelector(selector: string): { value: string; dispatchEvent(event: unknown): boolean };
    querySelectorAll(selector: string): { length: number };
  };
  requestAnimationFrame(callback: () => void): number;
};
const ROWS = 'table.secrets tbody tr';
const put = (envId: string, key: string, value: string) =>
  call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
const listed = async (envId: string) =>
  (await call('GET', `/api/v1/environments/${envId}/secrets?limit=200`, { token: ws.apiKey })).body.data as {
    id: string;
    key: string;
    currentVersion: number;
  }[];
const revealed = async (secretId: string) =>
  (await call('POST', `/api/v1/secrets/${secretId}/reveal`, { token: ws.apiKey })).body.data as { version: number; value: string };
/** The one table row of `key` (its key links to its history). */
const rowOf = (page: Page, key: string) => page.locator(ROWS).filter({ has: page.getByRole('link', { name: key, exact: true }) });
const shoot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

/** A fresh environment holding `secrets` (key → sample value), and the console signed in on its page. */
async function environmentPage(secrets: Record<string, string>, token = ws.apiKey) {
  const { project, environment } = await newEnvironment(ws.apiKey, { project: 'Checkout', environment: 'Production' });
  for (const [key, value] of Object.entries(secrets)) expect((await put(environment.id, key, value)).status).toBe(200);
  const { context, page } = await signedIn(browser, token, `/console/environments/${environment.id}`);
  await page.locator(ROWS).first().waitFor();
  return { project, environment, context, page };
}

describe('the environment page', () => {
  it('shows one row per key; Reveal shows the value in its row only, audited, until Hide or 30 s', async () => {
    const { environment, context, page } = await environmentPage({
      DATABASE_URL: 'sample-value-1',
      STRIPE_API_KEY: 'sample-value-2',
      SENTRY_DSN: 'sample-value-3',
    });
    await page.getByRole('heading', { name: 'Production' }).waitFor();
    expect(await page.locator(ROWS).count()).toBe(3);
    for (const key of ['DATABASE_URL', 'STRIPE_API_KEY', 'SENTRY_DSN']) expect(await rowOf(page, key).count()).toBe(1);
    expect(await page.content()).not.toContain('sample-value-');

    const row = rowOf(page, 'STRIPE_API_KEY');
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByText('sample-value-2').waitFor();
    expect(await rowOf(page, 'DATABASE_URL').textContent()).not.toContain('sample-value');
    const secretId = (await listed(environment.id)).find((s) => s.key === 'STRIPE_API_KEY')!.id;
    const audit = (await call('GET', `/api/v1/audit?action=secret.reveal&target=${secretId}`, { token: ws.apiKey })).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0].metadata.key).toBe('STRIPE_API_KEY');
    expect(page.url()).not.toContain('sample-value-2');
    expect(await page.title()).not.toContain('sample-value-2');
    expect(await storages(page)).not.toContain('sample-value-2');

    await row.getByRole('button', { name: 'Hide' }).click();
    await row.getByRole('button', { name: 'Reveal' }).waitFor();
    expect(await row.textContent()).not.toContain('sample-value-2');

    // The 30 s re-mask, on the page's own clock fast-forwarded.
    await page.clock.install();
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByText('sample-value-2').waitFor();
    await page.clock.fastForward(29_000);
    expect(await row.textContent()).toContain('sample-value-2');
    await page.clock.fastForward(2_000);
    await row.getByRole('button', { name: 'Reveal' }).waitFor();
    expect(await row.textContent()).not.toContain('sample-value-2');

    await rowOf(page, 'DATABASE_URL').getByRole('button', { name: 'Reveal' }).click();
    await rowOf(page, 'DATABASE_URL').getByText('sample-value-1').waitFor();
    await shoot(page, 'environment');
    await context.close();
  });

  it('writes a new secret with If-Match 0, and answers CONFLICT for a key that exists', async () => {
    const { environment, context, page } = await environmentPage({ DATABASE_URL: 'sample-value-1' });
    await page.getByRole('button', { name: 'New secret' }).click();
    await page.getByLabel('Key', { exact: true }).fill('REDIS_URL');
    await page.getByLabel('Value').fill('sample-value-4');
    await page.getByRole('button', { name: 'Save' }).click();
    await rowOf(page, 'REDIS_URL').waitFor();
    expect(await rowOf(page, 'REDIS_URL').locator('td').nth(1).textContent()).toBe('1');
    expect((await listed(environment.id)).map((s) => s.key)).toEqual(['DATABASE_URL', 'REDIS_URL']);

    await page.getByRole('button', { name: 'New secret' }).click();
    await page.getByLabel('Key', { exact: true }).fill('DATABASE_URL');
    await page.getByLabel('Value').fill('sample-overwrite');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'CONFLICT' }).waitFor();
    const existing = (await listed(environment.id)).find((s) => s.key === 'DATABASE_URL')!;
    expect(existing.currentVersion).toBe(1);
    expect((await revealed(existing.id)).value).toBe('sample-value-1');
    await context.close();
  });

  it('writes a new version against the version on screen; a change made meanwhile is a CONFLICT, not overwritten', async () => {
    const { environment, context, page } = await environmentPage({ SENTRY_DSN: 'sample-value-1' });
    const row = rowOf(page, 'SENTRY_DSN');
    await row.getByRole('button', { name: 'New version' }).click();
    await row.getByLabel('Value').fill('sample-value-2');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('2');
    const id = (await listed(environment.id))[0]!.id;
    expect(await revealed(id)).toMatchObject({ version: 2, value: 'sample-value-2' });

    // Someone else writes version 3 while the page still shows version 2.
    expect((await put(environment.id, 'SENTRY_DSN', 'sample-value-3')).body.data.version).toBe(3);
    await row.getByRole('button', { name: 'New version' }).click();
    await row.getByLabel('Value').fill('sample-value-lost');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByRole('alert').filter({ hasText: 'CONFLICT' }).waitFor();
    expect(await revealed(id)).toMatchObject({ version: 3, value: 'sample-value-3' });
    expect((await listed(environment.id))[0]!.currentVersion).toBe(3);
    await context.close();
  });

  it('deletes with the default 7-day window after Confirm, and restores from the deleted list', async () => {
    const { environment, context, page } = await environmentPage({ OLD_TOKEN: 'sample-value-1', KEEP_ME: 'sample-value-2' });
    await rowOf(page, 'OLD_TOKEN').getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Recovery window (days)').inputValue()).toBe('7');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await rowOf(page, 'OLD_TOKEN').waitFor({ state: 'detached' });
    const deleted = page.locator('table.deleted tbody tr').filter({ hasText: 'OLD_TOKEN' });
    await deleted.waitFor();
    const gone = (await call('GET', `/api/v1/environments/${environment.id}/secrets/deleted`, { token: ws.apiKey })).body.data;
    expect(gone).toHaveLength(1);
    expect(Date.parse(gone[0].purgeAt) - Date.parse(gone[0].deletedAt)).toBe(7 * 24 * 3600 * 1000);
    expect((await listed(environment.id)).map((s) => s.key)).toEqual(['KEEP_ME']);

    await deleted.getByRole('button', { name: 'Restore' }).click();
    await rowOf(page, 'OLD_TOKEN').waitFor();
    await page.getByText('No deleted secrets to restore.').waitFor();
    expect((await listed(environment.id)).map((s) => s.key)).toEqual(['KEEP_ME', 'OLD_TOKEN']);
    await context.close();
  });

  it('offers a viewer no Reveal, New secret, New version or Delete', async () => {
    const viewer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: ['viewer'] });
    const { context, page } = await environmentPage({ DATABASE_URL: 'sample-value-1', SENTRY_DSN: 'sample-value-2' }, viewer);
    expect(await page.locator(ROWS).count()).toBe(2);
    await page.getByRole('heading', { name: 'Deleted secrets' }).waitFor();
    for (const name of ['Reveal', 'New secret', 'New version', 'Delete'])
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    expect(await page.getByRole('link', { name: 'History' }).count()).toBe(2);
    await context.close();
  });

  it('shows a FORBIDDEN from the API plainly (an access key that may only read)', async () => {
    const key = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: { name: 'read only', permissions: [{ actions: ['read'] }] },
    });
    const { context, page } = await environmentPage({ DATABASE_URL: 'sample-value-1' }, key.body.data.token);
    const row = rowOf(page, 'DATABASE_URL');
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
    expect(await row.textContent()).not.toContain('sample-value-1');
    await context.close();
  });
});

describe('compare, history and search', () => {
  it('compares two environments by key and version, never by value', async () => {
    const { project, environment: production } = await newEnvironment(ws.apiKey, { project: 'Billing', environment: 'Production' });
    const staging = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'Staging' } }))
      .body.data;
    for (const [envId, key, value] of [
      [production.id, 'SHARED_KEY', 'sample-value-1'],
      [staging.id, 'SHARED_KEY', 'sample-value-1'],
      [production.id, 'API_URL', 'sample-value-2'],
      [production.id, 'API_URL', 'sample-value-3'],
      [staging.id, 'API_URL', 'sample-value-4'],
      [production.id, 'ONLY_PRODUCTION', 'sample-value-5'],
      [staging.id, 'ONLY_STAGING', 'sample-value-6'],
    ] as const)
      await put(envId, key, value);
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/projects/${project.id}`);
    await page.getByRole('link', { name: 'Staging' }).waitFor();
    await page.getByLabel('First environment').selectOption({ label: 'Production' });
    await page.getByLabel('Second environment').selectOption({ label: 'Staging' });
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { name: 'Different versions (1)' }).waitFor();
    expect(new URL(page.url()).search).toBe(`?a=${production.id}&b=${staging.id}`);
    expect(await page.getByRole('region', { name: 'Only in Production' }).textContent()).toContain('ONLY_PRODUCTION');
    expect(await page.getByRole('region', { name: 'Only in Staging' }).textContent()).toContain('ONLY_STAGING');
    const differ = page.getByRole('region', { name: 'Different versions' }).getByRole('row').filter({ hasText: 'API_URL' });
    expect(await differ.locator('td').allTextContents()).toEqual(['API_URL', 'version 2', 'version 1']);
    expect(await page.content()).not.toContain('sample-value');
    await shoot(page, 'compare');
    await context.close();
  });

  it('lists the history newest first and rolls back an older version after Confirm', async () => {
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Ledger', environment: 'Production' });
    for (const value of ['sample-value-1', 'sample-value-2']) await put(environment.id, 'SIGNING_KEY', value);
    const id = (await listed(environment.id))[0]!.id;
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/secrets/${id}`);
    await page.getByRole('heading', { name: 'SIGNING_KEY' }).waitFor();
    const rows = page.locator('table.history tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    // The secret was read by id in one request: its ARN (the AWS API's name for it), no description or tags yet.
    const facts = page.locator('dl.secret-facts');
    expect(await facts.textContent()).toMatch(
      /ARNarn:aws:secretsmanager:us-east-1:000000000000:secret:ledger\/production\/SIGNING_KEY-[A-Za-z0-9]{6}/,
    );
    expect(await facts.textContent()).toContain('Descriptionnone');
    // Each version's labels and VersionId, as the AWS API names them.
    expect((await rows.nth(0).locator('td').allTextContents()).slice(0, 3)).toEqual([
      '2',
      'AWSCURRENT',
      expect.stringMatching(/^[0-9a-f-]{36}$/),
    ]);
    expect((await rows.nth(1).locator('td').allTextContents()).slice(0, 2)).toEqual(['1', 'AWSPREVIOUS']);
    expect(await rows.nth(0).getByRole('button', { name: 'Roll back' }).count()).toBe(0);
    await rows.nth(1).getByRole('button', { name: 'Roll back' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.locator('table.history tbody tr').nth(2).waitFor();
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual([
      '3',
      'AWSCURRENT',
      expect.any(String),
      expect.any(String),
      expect.any(String),
      'version 1',
      '',
    ]);
    const versions = (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data;
    expect(versions[0]).toMatchObject({ version: 3, rolledBackFrom: 1 });
    expect(await revealed(id)).toMatchObject({ version: 3, value: 'sample-value-1' });
    expect(await page.content()).not.toContain('sample-value');
    await shoot(page, 'history');
    await context.close();
  });

  it('searches keys across the workspace, linking to the environment and the history', async () => {
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Search', environment: 'Production' });
    await put(environment.id, 'UNIQUE_SEARCH_KEY', 'sample-value-1');
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/search');
    await page.getByLabel('Key contains').fill('unique_search');
    await page.getByRole('button', { name: 'Search' }).click();
    const link = page.getByRole('link', { name: 'UNIQUE_SEARCH_KEY' });
    await link.waitFor();
    expect(page.url()).toContain('/console/search?q=unique_search');
    expect(await page.getByRole('link', { name: 'search/production' }).getAttribute('href')).toBe(
      `/console/environments/${environment.id}`,
    );
    await link.click();
    await page.getByRole('heading', { name: 'UNIQUE_SEARCH_KEY' }).waitFor();
    await context.close();
  });

  it('ignores an answer that arrives after a newer one (a search changed while the first was on its way)', async () => {
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Stale', environment: 'Production' });
    await put(environment.id, 'STALE_OLD_KEY', 'sample-value-1');
    await put(environment.id, 'STALE_NEW_KEY', 'sample-value-2');
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/search');
    // The first search's request is held until the second one has answered and is on screen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/v1\/search\/secrets\?.*q=stale_old/, async (route) => (await held, await route.continue()));
    const search = async (text: string) => (
      await page.getByLabel('Key contains').fill(text), await page.getByRole('button', { name: 'Search' }).click()
    );
    const asked = page.waitForRequest(/q=stale_old/);
    await search('stale_old');
    await asked;
    await search('stale_new');
    await page.getByRole('link', { name: 'STALE_NEW_KEY' }).waitFor();
    const answered = page.waitForResponse(/q=stale_old/);
    release();
    await answered;
    // Time for the late answer to reach the view, had it been taken.
    await page.waitForTimeout(300);
    expect(await page.getByRole('link', { name: 'STALE_OLD_KEY' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'STALE_NEW_KEY' }).count()).toBe(1);
    await context.close();
  });
});

/** Whether the element `locator` finds has the page's focus. */
const focused = (locator: ReturnType<Page['locator']>) =>
  locator.evaluate(
    (element: unknown) => (element as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === element,
  );

describe('rotation, dialogs and titles', () => {
  /** A secret of two versions with rotation configured (no function: the service generates the value), on its page. */
  async function rotatedSecretPage(token = ws.apiKey) {
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Vault', environment: 'Production' });
    for (const value of ['sample-value-1', 'sample-value-2']) await put(environment.id, 'DB_PASSWORD', value);
    const id = (await listed(environment.id))[0]!.id;
    const configured = await call('PUT', `/api/v1/secrets/${id}/rotation`, {
      token: ws.apiKey,
      body: { function: null, schedule: 'rate(30 days)', duration: '2h' },
    });
    expect(configured.status).toBe(200);
    const { context, page } = await signedIn(browser, token, `/console/secrets/${id}`);
    await page.getByRole('heading', { name: 'DB_PASSWORD' }).waitFor();
    await page.locator('table.history tbody tr').nth(1).waitFor();
    return { id, context, page, rotation: page.getByRole('region', { name: 'Rotation' }) };
  }

  it('shows the rotation as the API answers it, and Rotate now starts one: a new AWSCURRENT version, lastRotatedAt set', async () => {
    const { id, context, page, rotation } = await rotatedSecretPage();
    const facts = async () => (await rotation.locator('dd').allTextContents()).map((text) => text.trim());
    expect((await facts()).slice(0, 5)).toEqual(['on', 'generated value (no rotation function)', 'rate(30 days)', '2h', '—']);
    expect((await facts())[5]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    await rotation.getByRole('button', { name: 'Rotate now' }).click();
    await rotation.getByRole('status').filter({ hasText: 'Rotation started' }).waitFor();
    await rotation.getByText('Rotated: a new version is current.').waitFor({ timeout: 30_000 });
    const rows = page.locator('table.history tbody tr');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    expect((await rows.nth(0).locator('td').allTextContents()).slice(0, 2)).toEqual(['3', 'AWSCURRENT']);
    expect((await rows.nth(1).locator('td').allTextContents()).slice(0, 2)).toEqual(['2', 'AWSPREVIOUS']);
    const read = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data;
    expect(read.rotation.lastRotatedAt).toEqual(expect.any(String));
    expect((await facts())[4]).toBe(`${read.rotation.lastRotatedAt.replace('T', ' ').slice(0, 19)} UTC`);
    expect((await revealed(id)).version).toBe(3);
    expect(await page.content()).not.toContain((await revealed(id)).value);
    await context.close();
  });

  it('shows a CONFLICT (a rotation already running) as the API says it', async () => {
    const { context, page, rotation } = await rotatedSecretPage();
    // The API's answer while another rotation of the secret runs (a generated rotation ends too fast to meet it here).
    await page.route(/\/api\/v1\/secrets\/[^/]+\/rotate$/, (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          data: null,
          error: { code: 'CONFLICT', message: 'rotation: this secret is rotating already; wait for it to end' },
          meta: { requestId: 'req_test' },
        }),
      }),
    );
    await rotation.getByRole('button', { name: 'Rotate now' }).click();
    const alert = rotation.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('CONFLICT rotation: this secret is rotating already; wait for it to end');
    expect(await rotation.getByRole('status').count()).toBe(0);
    await context.close();
  });

  it('offers a viewer the rotation to read, without Rotate now', async () => {
    const viewer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: ['viewer'] });
    const { context, rotation } = await rotatedSecretPage(viewer);
    await rotation.getByText('rate(30 days)').waitFor();
    expect(await rotation.getByRole('button', { name: 'Rotate now' }).count()).toBe(0);
    await context.close();
  });

  it('moves focus into a dialog, closes it on Escape and gives focus back to the button that opened it', async () => {
    const { id, context, page } = await rotatedSecretPage();
    const rollBack = page.locator('table.history tbody tr').nth(1).getByRole('button', { name: 'Roll back' });
    await rollBack.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await focused(dialog.getByRole('button', { name: 'Confirm' }))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(rollBack)).toBe(true);

    // The delete dialog's first control is its recovery window; Cancel gives focus back as Escape does.
    const remove = page.getByRole('button', { name: 'Delete' });
    await remove.click();
    expect(await focused(dialog.getByLabel('Recovery window (days)'))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(remove)).toBe(true);
    await remove.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(remove)).toBe(true);
    // Nothing was rolled back or deleted.
    expect((await revealed(id)).version).toBe(2);
    await context.close();
  });

  it('names the view and its place in the document title', async () => {
    const { project, environment, context, page } = await environmentPage({ TITLE_KEY: 'sample-value-1' });
    const title = (text: string) => expect.poll(() => page.title()).toBe(`${text} — Secrets console`);
    await title(`Secrets · ${project.slug} / ${environment.slug}`);
    await page.getByRole('link', { name: 'TITLE_KEY' }).click();
    await title(`History · ${project.slug} / ${environment.slug} / TITLE_KEY`);
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await title('Search');
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await title('Projects');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await title('Sign in');
    expect(await page.title()).not.toContain('sample-value');
    await context.close();
  });
});

describe('a bookmarked page', () => {
  // Opened by its address in a fresh tab: one request for each object it shows, then the lists it shows, and no list
  // walked to find the object (decisions.md, "Lookups by id"). The shell itself sends nothing on a page's load.
  it('opens an environment with one request for it and its project', async () => {
    const { project, environment } = await newEnvironment(ws.apiKey, { project: 'Bookmarks', environment: 'Staging' });
    await put(environment.id, 'BOOKMARKED_KEY', 'sample-value-1');
    const { context, page, requests } = await openedDirectly(browser, ws.apiKey, `/console/environments/${environment.id}`);
    await page.getByRole('heading', { name: 'Staging' }).waitFor();
    await rowOf(page, 'BOOKMARKED_KEY').waitFor();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: project.slug }).waitFor();
    await page.getByText(`${project.slug}/${environment.slug}`).waitFor();
    console.info('bookmarked environment page:', requests);
    // The review policy is read too, for an admin's banner (decisions.md, "Change requests").
    expect(requests.sort()).toEqual([
      `GET /api/v1/environments/${environment.id}`,
      `GET /api/v1/environments/${environment.id}/review-policy`,
      `GET /api/v1/environments/${environment.id}/secrets/deleted?limit=50`,
      `GET /api/v1/environments/${environment.id}/secrets?limit=200`,
    ]);
    await context.close();
  });

  it('opens a project with one request for it, then its environments', async () => {
    const { project } = await newEnvironment(ws.apiKey, { project: 'Bookmarked project', environment: 'Production' });
    const { context, page, requests } = await openedDirectly(browser, ws.apiKey, `/console/projects/${project.id}`);
    await page.getByRole('heading', { name: 'Bookmarked project' }).waitFor();
    await page.getByRole('link', { name: 'Production' }).waitFor();
    console.info('bookmarked project page:', requests);
    expect(requests.sort()).toEqual([`GET /api/v1/projects/${project.id}`, `GET /api/v1/projects/${project.id}/environments?limit=200`]);
    await context.close();
  });

  it('opens a secret with one request for it, then its history', async () => {
    const { project, environment } = await newEnvironment(ws.apiKey, { project: 'Bookmarked secret', environment: 'Production' });
    const { id } = (await put(environment.id, 'HISTORY_KEY', 'sample-value-1')).body.data as { id: string };
    const { context, page, requests } = await openedDirectly(browser, ws.apiKey, `/console/secrets/${id}`);
    await page.getByRole('heading', { name: 'HISTORY_KEY' }).waitFor();
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
    await crumbs.getByRole('link', { name: project.slug }).waitFor();
    await crumbs.getByRole('link', { name: environment.slug }).waitFor();
    await page.locator('table.history tbody tr').first().waitFor();
    console.info('bookmarked secret page:', requests);
    expect(requests.sort()).toEqual([`GET /api/v1/secrets/${id}`, `GET /api/v1/secrets/${id}/versions?limit=50`]);
    await context.close();
  });

  it('opens a comparison with one request for each environment, then their keys', async () => {
    const { project, environment: production } = await newEnvironment(ws.apiKey, {
      project: 'Bookmarked compare',
      environment: 'Production',
    });
    const staging = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'Staging' } }))
      .body.data;
    await put(production.id, 'ONLY_PRODUCTION', 'sample-value-1');
    const path = `/console/projects/${project.id}/compare?a=${production.id}&b=${staging.id}`;
    const { context, page, requests } = await openedDirectly(browser, ws.apiKey, path);
    await page.getByRole('region', { name: 'Only in Production' }).getByText('ONLY_PRODUCTION').waitFor();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: project.slug }).waitFor();
    console.info('bookmarked comparison:', requests);
    expect(requests.sort()).toEqual(
      [production.id, staging.id]
        .flatMap((envId) => [`GET /api/v1/environments/${envId}`, `GET /api/v1/environments/${envId}/secrets?limit=200`])
        .sort(),
    );
    await context.close();
  });
});

describe('an environment of 1,000 secrets', () => {
  it('lists every page and filters to one key (figures logged, correctness asserted)', { timeout: 240_000 }, async () => {
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Large', environment: 'Production' });
    const keys = Array.from({ length: 1000 }, (_, i) => `PERF_${String(i).padStart(4, '0')}`);
    for (let start = 0; start < keys.length; start += 50) {
      const answers = await Promise.all(keys.slice(start, start + 50).map((key) => put(environment.id, key, 'sample-value')));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/environments/${environment.id}`);
    const rows = page.locator(ROWS);
    await rows.first().waitFor();
    // "Load more" until every page is listed (the count above the table says how many keys are loaded).
    const loadStarted = Date.now();
    const more = page.getByRole('button', { name: 'Load more' });
    const loaded = async () => Number((await page.getByText(/^\d+ keys/).textContent())!.split(' ')[0]);
    for (let count = await loaded(); count < 1000; count = await loaded()) {
      await more.click();
      await expect.poll(loaded).toBeGreaterThan(count);
    }
    await page.waitForFunction(([selector]) => (globalThis as unknown as InPage).document.querySelectorAll(selector).length === 1000, [
      ROWS,
    ] as const);
    const loadMoreMs = Date.now() - loadStarted;
    expect(await rows.count()).toBe(1000);
    expect(await more.count()).toBe(0);

    /**
     * Sets the filter inside the page and follows the frames until `expected` rows are on screen: when the first
     * rows were painted, when the last, and the longest frame meanwhile (a stall a person would see).
     */
    const filterTo = (value: string, expected: number) =>
      page.evaluate(
        async ([text, count, selector]) => {
          const { document, requestAnimationFrame } = globalThis as unknown as InPage;
          const input = document.querySelector('.toolbar input[type=search]');
          const start = performance.now();
          input.value = text;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          let [last, longest, first] = [start, 0, 0];
          for (let shown = 0; shown !== count; ) {
            await new Promise<void>((frame) => requestAnimationFrame(() => frame()));
            const now = performance.now();
            longest = Math.max(longest, now - last);
            last = now;
            shown = document.querySelectorAll(selector).length;
            first ||= shown > 0 ? now - start : 0;
          }
          return { first, all: last - start, longest };
        },
        [value, expected, ROWS] as const,
      );
    const rounds: Record<'filter' | 'firstRows' | 'allRows' | 'longestFrame', number>[] = [];
    for (let round = 0; round < 3; round++) {
      const filtered = await filterTo('perf_0500', 1);
      expect(await rows.count()).toBe(1);
      expect(await rows.first().getByRole('link', { name: 'PERF_0500', exact: true }).count()).toBe(1);
      const listed = await filterTo('', 1000);
      expect(await rows.count()).toBe(1000);
      rounds.push({ filter: filtered.all, firstRows: listed.first, allRows: listed.all, longestFrame: listed.longest });
    }
    const ms = (figure: keyof (typeof rounds)[number]) => `${rounds.map((r) => r[figure].toFixed(0)).join('/')} ms`;
    console.log(
      `console, 1,000 secrets (3 rounds): 4 more pages loaded in ${loadMoreMs} ms; filter to one key ${ms('filter')}; clearing it: first rows ${ms('firstRows')}, all 1,000 ${ms('allRows')}, longest frame ${ms('longestFrame')}`,
    );
    await context.close();
  });
});
