import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, signedIn } from '../support/browser.ts';
import { newEnvironment } from '../support/secrets.ts';

/**
 * Change requests in the console (decisions.md v1.4, "Change requests"): on an environment under review, a person's
 * write is proposed instead; another person reveals the proposed value, approves and merges it; the author's own
 * approval and a merge over a changed key show the API's refusal.
 */
let browser: Browser;
let close: () => Promise<void>;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  ws = await newWorkspace();
});
afterAll(() => close());

const person = (role: 'developer' | 'admin') => userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: [role] });

/** A fresh environment with API_URL at version 1, under a review policy of one approval set by the API key (admin). */
async function reviewedEnvironment(name: string): Promise<string> {
  const { environment } = await newEnvironment(ws.apiKey, { project: name, environment: 'Prod' });
  const put = await call('PUT', `/api/v1/environments/${environment.id}/secrets`, {
    token: ws.apiKey,
    body: { key: 'API_URL', value: 'sample-old' },
  });
  expect(put.status).toBe(200);
  const policy = await call('PUT', `/api/v1/environments/${environment.id}/review-policy`, {
    token: ws.apiKey,
    body: { requiredApprovals: 1 },
  });
  expect(policy.status).toBe(200);
  return environment.id;
}

const valueOf = async (envId: string, key: string) => {
  const listed = await call('GET', `/api/v1/environments/${envId}/secrets?limit=50`, { token: ws.apiKey });
  const id = listed.body.data.find((secret: { key: string }) => secret.key === key).id;
  return (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data.value as string;
};

/** As a developer on the environment's page: a new version of API_URL, refused REVIEW_REQUIRED, then proposed. */
async function proposeNewVersion(page: Page, value: string, title: string) {
  const row = page.locator('table.secrets tbody tr').filter({ has: page.getByRole('link', { name: 'API_URL', exact: true }) });
  await row.getByRole('button', { name: 'New version' }).click();
  await row.getByLabel('Value').fill(value);
  await row.getByRole('button', { name: 'Save' }).click();
  await row.getByRole('alert').filter({ hasText: 'REVIEW_REQUIRED' }).waitFor();
  await row.getByLabel('Change request title').fill(title);
  await row.getByRole('button', { name: 'Propose' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Change request ${title} opened` })
    .waitFor();
}

describe('change requests in the console', () => {
  it('a developer proposes, another reveals, approves and merges; the author cannot approve their own', async () => {
    // Prepare
    const envId = await reviewedEnvironment('Billing');
    const author = await signedIn(browser, await person('developer'), `/console/environments/${envId}`);

    // Act: A's direct write is refused, then proposed from the same form
    await proposeNewVersion(author.page, 'sample-new', 'Move the API');
    // Assess: the page now says writes here are reviewed; nothing was written
    await author.page.getByRole('note', { name: 'Review policy' }).getByText('Changes to this environment need review').waitFor();
    expect(await valueOf(envId, 'API_URL')).toBe('sample-old');

    // Act: A opens the request and approves it
    await author.page.getByRole('status').getByRole('link', { name: 'Move the API' }).click();
    await author.page.getByRole('button', { name: 'Approve' }).click();
    // Assess: FORBIDDEN, as the API says it
    const refusal = author.page.getByRole('form', { name: 'Review' }).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('FORBIDDEN');
    expect(await refusal.textContent()).toContain('author');
    await author.context.close();

    // Act: B finds it from the environment's page and reveals the proposed value
    const reviewer = await signedIn(browser, await person('developer'), `/console/environments/${envId}`);
    const { page } = reviewer;
    await page.getByRole('link', { name: 'Change requests', exact: true }).click();
    await page.getByRole('link', { name: 'Move the API' }).click();
    const changes = page.getByRole('table', { name: 'Changes' });
    await changes.getByText('API_URL').waitFor();
    expect(await page.content()).not.toContain('sample-new');
    await changes.getByRole('button', { name: 'Reveal API_URL' }).click();
    // Assess: the value, after the click only, and audited with the request's id
    await changes.getByText('sample-new').waitFor();
    const audit = (await call('GET', '/api/v1/audit?action=secret.reveal', { token: ws.apiKey })).body.data;
    expect(audit.some((entry: { metadata?: { changeRequestId?: string } }) => entry.metadata?.changeRequestId)).toBe(true);

    // Act: B approves, then merges
    await page.getByLabel('Comment').fill('Looks right');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Merge' }).click();
    // Assess: merged, and the secret has the proposed value
    await page.getByRole('table', { name: 'Change request' }).getByText('merged').waitFor();
    expect(await page.getByRole('list', { name: 'Reviews' }).textContent()).toContain('Looks right');
    expect(await valueOf(envId, 'API_URL')).toBe('sample-new');

    // Act: the environment's list, kept to one status
    await page.getByRole('link', { name: '← Change requests' }).click();
    await page.getByLabel('Status').selectOption('open');
    // Assess: none open; the merged one under `merged`
    await page.getByText('No open change requests.').waitFor();
    await page.getByLabel('Status').selectOption('merged');
    await page.locator('table.change-requests').getByRole('link', { name: 'Move the API' }).waitFor();
    expect(page.url()).toContain('?status=merged');
    await reviewer.context.close();
  });

  it('an admin sees the policy at once and proposes from the first click; a merge over a changed key names it', async () => {
    // Prepare
    const envId = await reviewedEnvironment('Payroll');
    const { context, page } = await signedIn(browser, await person('admin'), `/console/environments/${envId}`);
    await page.getByRole('note', { name: 'Review policy' }).getByText('need review: 1 approval').waitFor();

    // Act: the row's form proposes from the start, with no write tried
    const row = page.locator('table.secrets tbody tr').filter({ has: page.getByRole('link', { name: 'API_URL', exact: true }) });
    await row.getByRole('button', { name: 'New version' }).click();
    await row.getByLabel('Value').fill('sample-admin');
    await row.getByLabel('Change request title').fill('Admin change');
    await row.getByRole('button', { name: 'Propose' }).click();
    await page.getByRole('status').getByRole('link', { name: 'Admin change' }).click();
    const id = page.url().split('/').pop()!;

    // Prepare: approved by another person, then API_URL changes outside the request (the policy lifted meanwhile)
    const approved = await call('POST', `/api/v1/change-requests/${id}/reviews`, {
      token: await person('developer'),
      body: { decision: 'approve' },
    });
    expect(approved.body.data.status).toBe('approved');
    await call('DELETE', `/api/v1/environments/${envId}/review-policy`, { token: ws.apiKey });
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'API_URL', value: 'sample-other' } });

    // Act: the author merges
    await page.reload();
    await page.getByRole('button', { name: 'Merge' }).click();
    // Assess: CONFLICT naming the stale key with both versions; nothing changed
    const stale = page.getByRole('list', { name: 'Stale keys' });
    await stale.waitFor();
    expect(await stale.textContent()).toBe('API_URL: proposed on version 1, now 2');
    expect(await valueOf(envId, 'API_URL')).toBe('sample-other');
    await context.close();
  });

  it('a delete is proposed from its dialog, and its author closes the request', async () => {
    // Prepare
    const envId = await reviewedEnvironment('Ledger');
    const { context, page } = await signedIn(browser, await person('developer'), `/console/environments/${envId}`);
    const row = page.locator('table.secrets tbody tr').filter({ has: page.getByRole('link', { name: 'API_URL', exact: true }) });

    // Act: Delete, refused REVIEW_REQUIRED, then proposed from the same dialog
    await row.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete API_URL' });
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'REVIEW_REQUIRED' }).waitFor();
    await dialog.getByLabel('Change request title').fill('Drop the API');
    await dialog.getByRole('button', { name: 'Propose' }).click();
    await page.getByRole('status').getByRole('link', { name: 'Drop the API' }).click();
    // Assess: a delete of API_URL on its version 1; the key is still there
    const change = page.getByRole('table', { name: 'Changes' }).locator('tbody tr');
    expect(await change.textContent()).toBe('API_URLdelete1deleted');
    expect(await valueOf(envId, 'API_URL')).toBe('sample-old');

    // Act: its author closes it
    await page.getByRole('button', { name: 'Close' }).click();
    // Assess
    await page.getByRole('table', { name: 'Change request' }).getByText('closed').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await context.close();
  });
});
