import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Route } from 'playwright-core';
import { call, newWorkspace } from '../support/api.ts';
import { launchBrowser, signedIn } from '../support/browser.ts';
import { newEnvironment } from '../support/secrets.ts';

/**
 * The secret page and references (decisions.md v1.4, "Secret references"): the targets of a value linked to their
 * search, the secrets referencing it linked to their pages, `Show raw` revealing the text as written, audited, and a
 * reveal whose reference cannot be resolved naming it.
 */
let browser: Browser;
let close: () => Promise<void>;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  ws = await newWorkspace();
});
afterAll(() => close());

/**
 * Gives `GET /api/v1/secrets/{id}` the contract's reference fields where the API does not answer them yet (they land
 * in parallel, issue 48); an API that answers them is passed through unchanged, so then this checks the real thing.
 */
function withReferenceFields(fields: Record<string, { references: string[]; referencedBy: string[] }>) {
  return async (route: Route) => {
    const response = await route.fetch();
    const body = await response.json();
    const wanted = fields[body.data?.id];
    if (wanted) {
      body.data.references ??= wanted.references;
      body.data.referencedBy ??= wanted.referencedBy;
    }
    await route.fulfill({ response, json: body });
  };
}

describe('the secret page and references', () => {
  it('links the targets and the referencing secrets; Show raw reveals the text as written, audited', async () => {
    // Prepare: DATABASE_URL references DB_HOST
    const { project, environment } = await newEnvironment(ws.apiKey, { project: 'Refs', environment: 'Prod' });
    const put = async (key: string, value: string) =>
      (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value } })).body.data
        .id as string;
    const hostId = await put('DB_HOST', 'sample-host');
    const urlId = await put('DATABASE_URL', 'sample://${DB_HOST}/app');
    const hostPath = `${project.slug}/${environment.slug}/DB_HOST`;
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/projects');
    await page.route(
      /\/api\/v1\/secrets\/sec_[^/]+$/,
      withReferenceFields({
        [urlId]: { references: [hostPath], referencedBy: [] },
        [hostId]: { references: [], referencedBy: [urlId] },
      }),
    );

    // Act: the referencing secret's page
    await page.goto(page.url().replace('/console/projects', `/console/secrets/${urlId}`));
    const references = page.getByRole('list', { name: 'References' });
    await references.waitFor();
    // Assess: its target, linked to the search for its key
    expect(await references.getByRole('link').textContent()).toBe(hostPath);
    expect(await references.getByRole('link').getAttribute('href')).toBe('/console/search?q=DB_HOST');
    expect(await page.content()).not.toContain('sample://');

    // Act: Show raw
    await page.getByRole('button', { name: 'Show raw' }).click();
    // Assess: the text as written, revealed once with ?raw=true and audited
    await page.getByLabel('Raw value').getByText('sample://${DB_HOST}/app').waitFor();
    const audit = (await call('GET', `/api/v1/audit?action=secret.reveal&target=${urlId}`, { token: ws.apiKey })).body.data;
    expect(audit).toHaveLength(1);
    await page.getByLabel('Raw value').getByRole('button', { name: 'Hide' }).click();
    expect(await page.content()).not.toContain('sample://');

    // Act: the target's page
    await page.goto(page.url().replace(urlId, hostId));
    const referencedBy = page.getByRole('list', { name: 'Referenced by' });
    await referencedBy.waitFor();
    // Assess: the referencing secret, linked to its page
    expect(await referencedBy.getByRole('link').getAttribute('href')).toBe(`/console/secrets/${urlId}`);
    await context.close();
  });

  it("a row's Reveal of a value whose reference cannot be resolved shows no value and names the reference", async () => {
    // Prepare: BROKEN references a key the environment does not have
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Broken refs', environment: 'Prod' });
    await call('PUT', `/api/v1/environments/${environment.id}/secrets`, {
      token: ws.apiKey,
      body: { key: 'BROKEN', value: 'sample-${NOT_THERE}' },
    });
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/environments/${environment.id}`);
    const row = page.locator('table.secrets tbody tr').filter({ has: page.getByRole('link', { name: 'BROKEN', exact: true }) });
    // Act
    await row.getByRole('button', { name: 'Reveal' }).click();
    // Assess
    const unresolved = row.getByRole('list', { name: 'Unresolved references' });
    await unresolved.waitFor();
    expect(await unresolved.textContent()).toBe('${NOT_THERE}: unresolvable');
    expect(await row.getByRole('alert').textContent()).toContain('CONFLICT');
    expect(await page.content()).not.toContain('sample-');
    await context.close();
  });
});
