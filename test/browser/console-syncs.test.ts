import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, signedIn } from '../support/browser.ts';
import { startGithubStandIn, type GithubStandIn } from '../support/github-stand-in.ts';
import { newEnvironment } from '../support/secrets.ts';
import { waitFor } from '../support/webhooks.ts';

/**
 * Syncs in the console (decisions.md v1.4, "Syncs"): an admin makes a GitHub sync from an environment's page, pointed
 * at a GitHub stand-in the local stack trusts; its page follows the status to ok while the value arrives; it is
 * paused, resumed, changed and a failing one shows its last error. A developer sees no Syncs at all. The token is
 * compared as a boolean, so a failing assertion never prints it.
 */

const TOKEN = 'ghp_ConsoleSyncToken0123456789abcd';
let browser: Browser;
let close: () => Promise<void>;
let github: GithubStandIn;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  github = await startGithubStandIn({ token: TOKEN, certificate: inject('tls') });
  ws = await newWorkspace();
  envId = (await newEnvironment(ws.apiKey, { project: 'Sync demo', environment: 'Prod' })).environment.id;
  const put = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'DB_URL', value: 'sample-db' } });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  await github.close();
  await close();
});

const person = (role: 'developer' | 'admin') => userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: [role] });
const syncsOfEnvironment = async () => (await call('GET', `/api/v1/syncs?environmentId=${envId}`, { token: ws.apiKey })).body.data;

/** The sync page's Status cell shows `status`. */
const statusShows = (page: Page, status: string) =>
  page
    .getByRole('table', { name: 'Sync' })
    .getByRole('row', { name: /^Status/ })
    .getByText(status, { exact: true })
    .waitFor({ timeout: 40_000 });

/** Fills the new-sync form's GitHub fields (the environment chosen already) and submits it. */
async function createGithubSync(page: Page, repository: string, apiUrl: string) {
  const form = page.getByRole('form', { name: 'New sync' });
  await form.getByLabel('Repository').fill(repository);
  await form.getByLabel('GitHub token').fill(TOKEN);
  await form.getByLabel('API URL').fill(apiUrl);
  await form.getByLabel('Keys pattern').fill('DB_*');
  await form.getByRole('button', { name: 'Create sync' }).click();
  return form;
}

describe('syncs in the console', () => {
  it('an admin creates a GitHub sync from the environment, sees it ok, pauses, resumes and changes it', { timeout: 120_000 }, async () => {
    // Prepare
    const { context, page } = await signedIn(browser, await person('admin'), `/console/environments/${envId}`);
    await page.locator('main').getByRole('link', { name: 'New sync', exact: true }).click();
    await page.getByText('No syncs for this environment yet.').waitFor();

    // Act: a repository the API refuses, then the right one
    const form = await createGithubSync(page, 'not a repository', github.apiUrl);
    // Assess: the API's VALIDATION_ERROR, naming the field
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('VALIDATION_ERROR');
    expect(await refusal.textContent()).toContain('repository');
    await createGithubSync(page, 'acme/console', github.apiUrl);

    // Assess: the sync's page follows it to ok, the value at the stand-in; the token nowhere on the page
    await statusShows(page, 'ok');
    expect(github.secret('acme/console', 'DB_URL')).toBe('sample-db');
    expect((await page.content()).includes(TOKEN), 'token on the page').toBe(false);
    const [made] = await syncsOfEnvironment();
    expect(page.url()).toContain(`/console/syncs/${made.id}`);

    // Act + Assess: pause, then resume
    await page.getByRole('button', { name: 'Pause' }).click();
    await statusShows(page, 'paused');
    expect((await syncsOfEnvironment())[0].status).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect((await syncsOfEnvironment())[0].status).not.toBe('paused');

    // Act: new keys pattern, prune and token; then run now
    const settings = page.getByRole('form', { name: 'Sync settings' });
    await settings.getByLabel('Keys pattern').fill('**');
    await settings.getByLabel('Prune').check();
    await settings.getByLabel('New GitHub token').fill(TOKEN);
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').filter({ hasText: 'A full sync is queued.' }).waitFor();
    // Assess: changed as asked; the token field emptied, never filled from the API
    expect(await settings.getByLabel('New GitHub token').inputValue()).toBe('');
    expect(await syncsOfEnvironment()).toMatchObject([{ keys: '**', prune: true }]);
    await statusShows(page, 'ok');

    // Assess: the environment's page links its syncs, listed with destination, environment and status
    await page.goto(page.url().replace(`/console/syncs/${made.id}`, `/console/environments/${envId}`));
    await page.locator('main').getByRole('link', { name: 'Syncs', exact: true }).click();
    // The environment's name replaces its id once the environment is read: waited for, not read at once (CI of
    // 7b24b11 read the row before it came).
    const row = page.locator('table.syncs tbody tr').filter({ hasText: 'acme/console' });
    await row.filter({ hasText: 'sync-demo/prod' }).waitFor();
    expect(await row.textContent()).toContain('ok');
    await context.close();
  });

  it('a failing sync made from the Syncs page shows its last error, and is deleted after a confirmation', {
    timeout: 120_000,
  }, async () => {
    // Prepare: a stand-in refusing the token
    const revoked = await startGithubStandIn({ token: TOKEN, certificate: inject('tls') });
    revoked.failNext(401);
    const { context, page } = await signedIn(browser, await person('admin'));
    try {
      // Act: from the navigation, the environment chosen by project
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Syncs' }).click();
      await page.getByRole('button', { name: 'New sync' }).click();
      const form = page.getByRole('form', { name: 'New sync' });
      await form.getByLabel('Project').selectOption({ label: 'sync-demo' });
      await form.getByLabel(/^Environment/).selectOption({ label: 'prod' });
      await createGithubSync(page, 'acme/revoked', revoked.apiUrl);

      // Assess: the last error names GitHub's 401; the status becomes failing (24 scaled hours)
      const lastError = page.getByRole('table', { name: 'Sync' }).getByRole('row', { name: /^Last error/ });
      await lastError.getByText('401').waitFor({ timeout: 30_000 });
      await statusShows(page, 'failing');
      await page.getByRole('link', { name: '← Syncs' }).click();
      const row = page.locator('table.syncs tbody tr.failing').filter({ hasText: 'acme/revoked' });
      expect(await row.locator('.last-error').textContent()).toContain('401');

      // Act: delete it from its page, confirmed
      await row.getByRole('link', { name: /acme\/revoked/ }).click();
      const id = page.url().split('/').pop()!;
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      // Assess: back at the list, and gone from the API
      await page.getByRole('heading', { name: 'Syncs' }).waitFor();
      await waitFor(async () => (await call('GET', `/api/v1/syncs/${id}`, { token: ws.apiKey })).status === 404, 5000, 'deleted');
    } finally {
      await context.close();
      await revoked.close();
    }
  });

  it('a developer sees no Syncs in the navigation nor on the environment', async () => {
    const { context, page } = await signedIn(browser, await person('developer'), `/console/environments/${envId}`);
    await page.getByRole('link', { name: 'Change requests', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Syncs' }).count()).toBe(0);
    await context.close();
  });
});
