import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { newId } from '../../shared/platform/ids.ts';
import { API_KEY_AUTHORITY, machineAuthority, mayCall, ROLES, roleAuthority, type Authority } from '../../shared/access/permissions.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, signedIn } from '../support/browser.ts';
import { newEnvironment } from '../support/secrets.ts';

/**
 * What the console offers each credential is the server's role table (shared/access/permissions.ts), which its build
 * writes into the bundle: for each role, an API key and a machine token, the controls on an environment's page and
 * the admin sections are those the server's own policy grants, asked as the README's permission table asks it.
 */
let browser: Browser;
let close: () => Promise<void>;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  ws = await newWorkspace();
  ({
    environment: { id: envId },
  } = await newEnvironment(ws.apiKey, { project: 'Ledger', environment: 'Production' }));
  expect(
    (
      await call('PUT', `/api/v1/environments/${envId}/secrets`, {
        token: ws.apiKey,
        body: { key: 'DATABASE_URL', value: 'sample-value-1' },
      })
    ).status,
  ).toBe(200);
});
afterAll(() => close());

const may = (authority: Authority, action: 'reveal' | 'write' | 'delete') =>
  authority.policy.mayAnywhere(action, 'any-project', 'any-environment');

describe('the console offers each credential what the server grants it', () => {
  const credentials: { label: string; authority: Authority; token: () => Promise<string> }[] = [
    ...ROLES.map((role) => ({
      label: role,
      authority: roleAuthority(role),
      token: () => userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: [role] }),
    })),
    { label: 'API key', authority: API_KEY_AUTHORITY, token: async () => ws.apiKey },
    {
      label: 'machine',
      authority: machineAuthority(),
      token: async () => (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'default rules' } })).body.data.token,
    },
  ];

  it.each(credentials)('$label', async ({ label, authority, token }) => {
    const { context, page } = await signedIn(browser, await token(), `/console/environments/${envId}`);
    const row = page.locator('table.secrets tbody tr').filter({ has: page.getByRole('link', { name: 'DATABASE_URL', exact: true }) });
    await row.waitFor();
    await page.getByRole('heading', { name: 'Deleted secrets' }).waitFor();
    expect(await page.locator('.role').textContent()).toBe(label);
    expect(await row.getByRole('button', { name: 'Reveal' }).count(), 'Reveal').toBe(may(authority, 'reveal') ? 1 : 0);
    expect(await row.getByRole('button', { name: 'New version' }).count(), 'New version').toBe(may(authority, 'write') ? 1 : 0);
    expect(await page.getByRole('button', { name: 'New secret' }).count(), 'New secret').toBe(may(authority, 'write') ? 1 : 0);
    expect(await row.getByRole('button', { name: 'Delete' }).count(), 'Delete').toBe(may(authority, 'delete') ? 1 : 0);
    const sections = page.getByRole('navigation', { name: 'Sections' });
    for (const section of ['Audit log', 'Access keys', 'Webhooks'])
      expect(await sections.getByRole('link', { name: section }).count(), section).toBe(mayCall(authority, 'admin') ? 1 : 0);
    await context.close();
  });
});
