import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, signedIn, storages } from '../support/browser.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.ts';
import { waitFor } from '../support/webhooks.ts';

/**
 * Audit streams in the console (decisions.md v1.4, "Audit streams and tamper evidence"): an admin makes an https
 * stream pointed at a receiver the local stack trusts, sees its signing secret once, disables and enables it, sends it
 * a test entry, changes its headers and deletes it after a confirmation. A developer sees no Audit streams at all.
 * Credentials are compared as booleans, so a failing assertion never prints one.
 */

const HEADER_VALUE = 'Bearer ConsoleStreamHeader0123456789';
let browser: Browser;
let close: () => Promise<void>;
let receiver: HttpsReceiver;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  receiver = await startHttpsReceiver({}, inject('tls'));
  ws = await newWorkspace();
});
afterAll(async () => {
  await receiver.close();
  await close();
});

const person = (role: 'developer' | 'admin') => userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: [role] });
const streams = async () => (await call('GET', '/api/v1/audit-streams', { token: ws.apiKey })).body.data;

/** The stream page's Status cell shows `status`. */
const statusShows = (page: Page, status: string) =>
  page
    .getByRole('table', { name: 'Audit stream' })
    .getByRole('row', { name: /^Status/ })
    .getByText(status, { exact: true })
    .waitFor();

describe('audit streams in the console', () => {
  it('an admin creates an https stream, sees its secret once, disables, enables, changes and deletes it', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    const { context, page } = await signedIn(browser, await person('admin'));
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit streams' }).click();
    await page.getByText('No audit streams yet.').waitFor();

    // Act: a url the API refuses (http), then the receiver's, with a header whose value is a credential
    await page.getByRole('button', { name: 'New stream' }).click();
    const form = page.getByRole('form', { name: 'New audit stream' });
    await form.getByLabel('URL').fill(`${receiver.origin.replace('https:', 'http:')}/audit`);
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Header name 1').fill('Authorization');
    await form.getByLabel('Header value 1').fill(HEADER_VALUE);
    await form.getByRole('button', { name: 'Create stream' }).click();
    // Assess: the API's VALIDATION_ERROR, naming the rule
    const refusal = form.getByRole('alert');
    await refusal.filter({ hasText: 'VALIDATION_ERROR' }).waitFor();
    expect(await refusal.textContent()).toContain('https');
    expect(await form.getByLabel('Header value 1').getAttribute('type')).toBe('password');
    await form.getByLabel('URL').fill(`${receiver.origin}/audit`);
    await form.getByRole('button', { name: 'Create stream' }).click();

    // Assess: the secret shown once, as the API's hint ends; the header's value nowhere on the page or in storage
    const once = page.getByRole('region', { name: 'Signing secret' });
    await once.waitFor();
    const secret = (await once.locator('.secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    const [made] = await streams();
    expect(made).toMatchObject({ type: 'https', url: `${receiver.origin}/audit`, headers: ['Authorization'], status: 'active' });
    expect(made.secretHint.endsWith(secret.slice(-4))).toBe(true);
    expect((await page.content()).includes(HEADER_VALUE), 'header value on the page').toBe(false);
    expect((await storages(page)).includes(secret), 'secret in storage').toBe(false);
    const row = page.locator('table.audit-streams tbody tr').filter({ hasText: `${receiver.origin}/audit` });
    await row.filter({ hasText: 'active' }).waitFor();
    await once.getByRole('button', { name: 'Done' }).click();
    expect((await page.content()).includes(secret), 'secret after Done').toBe(false);

    // Act + Assess: the stream's page shows the header's name and the hint, never the secret; disable, then enable
    await row.getByRole('link').click();
    await page.waitForURL(new RegExp(`/console/audit-streams/${made.id}$`));
    await page.getByRole('table', { name: 'Audit stream' }).getByText(made.secretHint).waitFor();
    expect((await page.content()).includes(secret), 'secret on the stream page').toBe(false);
    await page.getByRole('button', { name: 'Disable' }).click();
    await statusShows(page, 'disabled');
    expect((await streams())[0].status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await statusShows(page, 'active');
    expect((await streams())[0].status).toBe('active');

    // Act: Send test, the receiver answering 200
    await page.getByRole('button', { name: 'Send test' }).click();
    // Assess: delivered, the entry signed at the receiver with the header the stream keeps
    await page.getByRole('status').filter({ hasText: 'Delivered (200).' }).waitFor();
    const received = receiver.requests.filter((request) => request.path === '/audit');
    expect(received.some((request) => request.body.includes('audit_stream.test'))).toBe(true);
    expect(
      received.every((request) => request.headers.authorization === HEADER_VALUE),
      'the stream sent its header',
    ).toBe(true);
    expect(received.every((request) => /^t=\d+,v1=[0-9a-f]{64}/.test(String(request.headers['service-signature'])))).toBe(true);

    // Act + Assess: the receiver refusing, the test says so with its status
    receiver.respond({ status: 503 });
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('status').filter({ hasText: 'Not delivered (503)' }).waitFor();
    receiver.respond({});

    // Act: every header removed through the settings
    const settings = page.getByRole('form', { name: 'Stream settings' });
    await settings.getByLabel('Remove every header').check();
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    // Assess
    await page
      .getByRole('table', { name: 'Audit stream' })
      .getByRole('row', { name: /^Headers/ })
      .getByText('none')
      .waitFor();
    expect((await streams())[0].headers).toEqual([]);

    // Act: delete, confirmed
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    // Assess: back at the list, and gone from the API
    await page.getByText('No audit streams yet.').waitFor();
    await waitFor(
      async () => (await call('GET', `/api/v1/audit-streams/${made.id}`, { token: ws.apiKey })).status === 404,
      5000,
      'deleted',
    );
    await context.close();
  });

  it('a developer sees no Audit streams in the navigation, and FORBIDDEN on its address', async () => {
    const { context, page } = await signedIn(browser, await person('developer'), '/console/audit-streams');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Projects' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Audit streams' }).count()).toBe(0);
    await page.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
    await context.close();
  });
});
