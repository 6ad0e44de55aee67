import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { verifyWebhook } from '@secrets-service/sdk';
import { newId } from '../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../support/api.ts';
import { launchBrowser, openedDirectly, signedIn, storages } from '../support/browser.ts';
import type { HttpsReceiver } from '../support/https-receiver.ts';
import { newEnvironment } from '../support/secrets.ts';
import { deliveriesOf, failedDeliveries, registerEndpoint, startReceiver, waitFor } from '../support/webhooks.ts';

/**
 * The admin side of the console in a real browser against the local stack (decisions.md, "Console", "Audit", "Access
 * keys", "Permissions of access keys", "Webhook operations"): data made through the API, the console driven by
 * accessible names, the effects checked through the API again. One-time tokens and secrets are compared as booleans,
 * so a failing assertion never prints one.
 */

let browser: Browser;
let close: () => Promise<void>;
const receivers: HttpsReceiver[] = [];
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await close();
});

/** A screenshot for docs/console/ at 1280×800 from the top (or from `from`), token prefixes and secret hints masked. */
async function screenshot(page: Page, name: string, from?: Locator) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await (from ? from.evaluate((element) => element.scrollIntoView()) : page.evaluate('window.scrollTo(0, 0)'));
  await page.screenshot({ path: `docs/console/${name}.png`, mask: [page.locator('.token-prefix, .secret-hint')] });
}

/** That a one-time value is nowhere but on screen: not in either storage, the address or the title. */
async function expectKeptNowhere(page: Page, value: string) {
  expect((await storages(page)).includes(value), 'in storage').toBe(false);
  expect(page.url().includes(value), 'in the URL').toBe(false);
  expect((await page.title()).includes(value), 'in the title').toBe(false);
}

/** The text of every cell of a table's body, row by row. */
const cellsOf = (table: Locator) =>
  table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));

const secretsOf = (envId: string) => `/api/v1/environments/${envId}/secrets`;

describe('the audit log', () => {
  it('lists the entries newest first, pages with Load more, and narrows to one action', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'Audit demo', environment: 'Production' });
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call('PUT', secretsOf(environment.id), { token: ws.apiKey, body: { key: `KEY_${batch}_${i}`, value: 'v' } }),
        ),
      );
    }
    const expected = (await call('GET', '/api/v1/audit?limit=200', { token: ws.apiKey })).body.data as {
      action: string;
      id: string;
      metadata: unknown;
    }[];
    expect(expected.length).toBeGreaterThan(50);

    const { context, page } = await signedIn(browser, ws.apiKey, '/console/audit');
    const table = page.getByRole('table');
    await table.getByRole('cell', { name: 'secret.create' }).first().waitFor();
    expect((await cellsOf(table)).length).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await waitFor(async () => (await cellsOf(table)).length === expected.length, 10_000, 'the second page');
    const rows = await cellsOf(table);
    expect(rows.map((cells) => cells[1])).toEqual(expected.map((entry) => entry.action));
    // Metadata as compact JSON, as the API gives it (the secret's key, never a value).
    const created = expected.findIndex((entry) => entry.action === 'secret.create');
    expect(rows[created]![4]).toBe(JSON.stringify(expected[created]!.metadata));
    await screenshot(page, 'audit-log');

    await page.getByLabel('Action').selectOption('project.create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/console\/audit\?action=project\.create$/);
    await waitFor(
      async () => JSON.stringify((await cellsOf(table)).map((cells) => cells[1])) === '["project.create"]',
      10_000,
      'the filtered log',
    );
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Clear' }).click();
    await waitFor(async () => (await cellsOf(table)).length === 50, 10_000, 'the whole log again');
    await context.close();
  });
});

describe('access keys', () => {
  it('creates a key with the rules editor, shows its token once, and the rules hold; then updates and revokes it', async () => {
    const ws = await newWorkspace();
    const { project, environment: prod } = await newEnvironment(ws.apiKey, { project: 'payments', environment: 'prod' });
    const staging = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'staging' } }))
      .body.data;
    for (const [envId, key, value] of [
      [prod.id, 'DB_PASSWORD', 'prod-db'],
      [prod.id, 'API_TOKEN', 'prod-api'],
      [staging.id, 'DB_PASSWORD', 'staging-db'],
    ] as const) {
      expect((await call('PUT', secretsOf(envId), { token: ws.apiKey, body: { key, value } })).status).toBe(200);
    }
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/access-keys');
    await page.getByRole('button', { name: 'New access key' }).click();
    const form = page.getByRole('form', { name: 'New access key' });
    await form.getByLabel('Name').fill('payments-reader');
    const rule = form.getByRole('group', { name: 'Rule 1' });
    expect(await rule.getByLabel('read', { exact: true }).isChecked()).toBe(true);
    await rule.getByLabel('Projects').fill('payments');
    await rule.getByLabel('Environments').fill('prod');
    await rule.getByLabel('Keys').fill('DB_*');
    await rule.getByLabel('reveal', { exact: true }).check();
    // A second rule, added and removed again: the key is made with the first alone.
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByRole('group', { name: 'Rule 2' }).getByLabel('Effect').selectOption('deny');
    await form.getByRole('button', { name: 'Remove rule 2' }).click();
    expect(await form.getByRole('group', { name: 'Rule 2' }).count()).toBe(0);
    await form.getByRole('button', { name: 'Create access key' }).click();

    const once = page.getByRole('region', { name: 'Access key token' });
    expect(await once.textContent()).toContain('will not be shown again');
    const token = (await once.locator('code.secret-value').textContent()) ?? '';
    expect(token.startsWith('st_')).toBe(true);
    await expectKeptNowhere(page, token);
    await once.getByRole('button', { name: 'Copy' }).click();
    expect((await page.evaluate<string>('navigator.clipboard.readText()')) === token, 'the clipboard holds the token').toBe(true);

    // The rules hold: a reveal in scope works; out of scope the secret does not exist for the key; a write is FORBIDDEN.
    const reveal = (path: string) => call('POST', '/api/v1/reveal', { token, body: { path } });
    const inScope = await reveal('payments/prod/DB_PASSWORD');
    expect([inScope.status, inScope.body.data.value]).toEqual([200, 'prod-db']);
    expect((await reveal('payments/prod/API_TOKEN')).body.error.code).toBe('NOT_FOUND');
    expect((await reveal('payments/staging/DB_PASSWORD')).body.error.code).toBe('NOT_FOUND');
    expect((await call('PUT', secretsOf(prod.id), { token, body: { key: 'DB_PASSWORD', value: 'x' } })).body.error.code).toBe('FORBIDDEN');
    const [listed] = (await call('GET', '/api/v1/access-keys', { token: ws.apiKey })).body.data;
    expect(listed.permissions).toEqual([
      { effect: 'allow', projects: ['payments'], environments: ['prod'], keys: ['DB_*'], actions: ['read', 'reveal'] },
    ]);

    await once.getByRole('button', { name: 'Done' }).click();
    await once.waitFor({ state: 'detached' });
    expect((await page.content()).includes(token), 'the token left the page').toBe(false);
    const row = page.getByRole('row', { name: /payments-reader/ });
    expect(await row.textContent()).toContain('allow read, reveal on payments / prod / DB_*');

    // A rules editor on screen for the picture: a key being made with an allow rule and a deny rule.
    await page.getByRole('button', { name: 'New access key' }).click();
    await form.getByLabel('Name').fill('ci-deploy');
    await form.getByRole('group', { name: 'Rule 1' }).getByLabel('Projects').fill('payments, billing');
    await form.getByRole('group', { name: 'Rule 1' }).getByLabel('write', { exact: true }).check();
    await form.getByRole('button', { name: 'Add rule' }).click();
    const deny = form.getByRole('group', { name: 'Rule 2' });
    await deny.getByLabel('Effect').selectOption('deny');
    await deny.getByLabel('Environments').fill('prod');
    await deny.getByLabel('Keys').fill('ROOT_*');
    await screenshot(page, 'access-keys');
    await page.getByRole('button', { name: 'New access key' }).click();

    // Update: name and environments, then networks; each takes effect on the token's next request.
    await page.getByRole('button', { name: 'Edit payments-reader' }).click();
    const edit = page.getByRole('form', { name: 'Edit payments-reader' });
    await edit.getByLabel('Name').fill('payments-reader-2');
    await edit.getByRole('group', { name: 'Rule 1' }).getByLabel('Environments').fill('prod, staging');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('row', { name: /payments-reader-2/ })
      .getByText('allow read, reveal on payments / prod,staging / DB_*')
      .waitFor();
    expect((await reveal('payments/staging/DB_PASSWORD')).body.data.value).toBe('staging-db');
    const [update] = (await call('GET', '/api/v1/audit?action=access_key.update', { token: ws.apiKey })).body.data;
    expect(update.metadata.changed.sort()).toEqual(['name', 'permissions']);

    await page.getByRole('button', { name: 'Edit payments-reader-2' }).click();
    await page.getByRole('form', { name: 'Edit payments-reader-2' }).getByLabel('Allowed CIDRs').fill('203.0.113.0/24');
    await page.getByRole('form', { name: 'Edit payments-reader-2' }).getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('row', { name: /payments-reader-2/ })
      .getByText('203.0.113.0/24')
      .waitFor();
    expect((await reveal('payments/prod/DB_PASSWORD')).body.error.code).toBe('FORBIDDEN');

    // Revoke, after a Confirm: the row says revoked and the token stops working.
    await page.getByRole('button', { name: 'Revoke payments-reader-2' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('row', { name: /payments-reader-2/ })
      .getByText('revoked', { exact: true })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Revoke payments-reader-2' }).count()).toBe(0);
    expect((await reveal('payments/prod/DB_PASSWORD')).status).toBe(401);
    await context.close();
  });

  it('creates AWS credentials: the secret access key shown once, the key id on the row, and the pair signs AWS API calls', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'ledger', environment: 'prod' });
    expect(
      (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'K', value: 'v' } })).status,
    ).toBe(200);
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/access-keys');
    await page.getByRole('button', { name: 'New access key' }).click();
    const form = page.getByRole('form', { name: 'New access key' });
    await form.getByLabel('Name').fill('external-secrets');
    await form.getByLabel('Authentication').selectOption('aws_sigv4');
    // A key pair has no login tokens: no token lifetime to set.
    expect(await form.getByLabel('Token lifetime (seconds)').count()).toBe(0);
    await form.getByRole('group', { name: 'Rule 1' }).getByLabel('reveal', { exact: true }).check();
    await form.getByRole('button', { name: 'Create access key' }).click();
    const once = page.getByRole('region', { name: 'AWS secret access key' });
    expect(await once.textContent()).toContain('will not be shown again');
    const secret = (await once.locator('code.secret-value').textContent()) ?? '';
    expect(secret).toHaveLength(40);
    const accessKeyId = /AKSM[A-Z2-7]{16}/.exec((await once.textContent()) ?? '')?.[0] ?? '';
    expect(accessKeyId).not.toBe('');
    await expectKeptNowhere(page, secret);
    const sm = new SecretsManagerClient({
      endpoint: inject('stack').baseUrl,
      region: 'us-east-1',
      credentials: { accessKeyId, secretAccessKey: secret },
      maxAttempts: 1,
    });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'ledger/prod/K' }))).SecretString).toBe('v');
    await once.getByRole('button', { name: 'Done' }).click();
    await once.waitFor({ state: 'detached' });
    expect((await page.content()).includes(secret), 'the secret left the page').toBe(false);
    expect(await page.getByRole('row', { name: /external-secrets/ }).textContent()).toContain(`AWS credentials: ${accessKeyId}`);
    await context.close();
  });
});

describe('webhooks', () => {
  it('registers an endpoint (its signing secret shown once), pauses, resumes and deletes endpoints', async () => {
    const ws = await newWorkspace();
    const receiver = await startReceiver({ status: 200 });
    receivers.push(receiver);
    const url = `${receiver.origin}/hook`;
    const { context, page } = await signedIn(browser, ws.apiKey, '/console/webhooks');
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('Description').fill('Payments receiver');
    await form.getByLabel('service.secret.create').check();
    await form.getByLabel('service.secret.delete').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const once = page.getByRole('region', { name: 'Signing secret' });
    expect(await once.textContent()).toContain('will not be shown again');
    const secret = (await once.locator('code.secret-value').textContent()) ?? '';
    expect(secret.startsWith('whsec_')).toBe(true);
    await expectKeptNowhere(page, secret);
    await once.getByRole('button', { name: 'Done' }).click();
    await once.waitFor({ state: 'detached' });
    const [endpoint] = (await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data;
    expect(endpoint).toMatchObject({
      url,
      events: ['service.secret.create', 'service.secret.delete'],
      description: 'Payments receiver',
      enabled: true,
    });
    const row = page.getByRole('row', { name: new RegExp(url) });
    expect(await row.textContent()).toContain(`whsec_…${secret.slice(-4)}`);
    await screenshot(page, 'webhooks');

    await page.getByRole('button', { name: `Pause ${url}`, exact: true }).click();
    await row.getByText('paused', { exact: true }).waitFor();
    expect((await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data[0].enabled).toBe(false);
    await page.getByRole('button', { name: `Resume ${url}`, exact: true }).click();
    await row.getByText('enabled', { exact: true }).waitFor();
    expect((await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data[0].enabled).toBe(true);

    const other = await registerEndpoint(ws.apiKey, `${receiver.origin}/other`);
    await page.reload();
    await page.getByRole('button', { name: `Delete ${other.url}`, exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('link', { name: other.url }).waitFor({ state: 'detached' });
    expect((await call('GET', '/api/v1/webhooks', { token: ws.apiKey })).body.data.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    await page.getByRole('link', { name: url }).click();
    await page.waitForURL(new RegExp(`/console/webhooks/${endpoint.id}$`));
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await context.close();
  });

  it('opens a bookmarked endpoint with one request for it, walking no list of endpoints', async () => {
    const ws = await newWorkspace();
    const receiver = await startReceiver({ status: 200 });
    receivers.push(receiver);
    // Endpoints registered after it come first in the list: a page that walked the list would read them too.
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/bookmarked`);
    for (const name of ['later-1', 'later-2']) await registerEndpoint(ws.apiKey, `${receiver.origin}/${name}`);
    const { context, page, requests } = await openedDirectly(browser, ws.apiKey, `/console/webhooks/${endpoint.id}`);
    await page.getByRole('table', { name: 'Endpoint' }).getByText(endpoint.url).waitFor();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    console.info('bookmarked endpoint page:', requests);
    const own = `/api/v1/webhooks/${endpoint.id}`;
    expect(requests.filter((request) => request === `GET ${own}`)).toHaveLength(1);
    // Besides it, only the endpoint's own statistics and deliveries: nothing of the list route.
    expect(requests.filter((request) => !request.startsWith(`GET ${own}`))).toEqual([]);
    expect(requests.filter((request) => /^GET \/api\/v1\/webhooks(\?|$)/.test(request))).toEqual([]);
    await context.close();
  });

  it('sends a test event, shows its delivery and attempt log, retries it, recovers failed ones, rotates the secret and shows stats', async () => {
    const ws = await newWorkspace();
    const receiver = await startReceiver({ status: 200 });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.create']);
    const failed = await failedDeliveries(ws.workspaceId, endpoint.id, 3);
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/webhooks/${endpoint.id}`);
    await page.getByRole('table', { name: 'Endpoint' }).getByText(endpoint.url).waitFor();
    const deliveries = page.locator('table.deliveries-table');
    await deliveries.getByText(failed[0]!.id).waitFor();

    // A test event reaches the receiver, signed with the endpoint's secret, and its delivery shows with its attempt log.
    await page.getByRole('button', { name: 'Send test event' }).click();
    const ping = await waitFor(
      async () => receiver.requests.find((r) => r.headers['service-event-type'] === 'service.ping'),
      20_000,
      'the test event',
    );
    const event = verifyWebhook(ping.body, ping.headers as Record<string, string>, endpoint.secret);
    expect(event).toMatchObject({ type: 'service.ping', data: { endpointId: endpoint.id } });
    const deliveryId = String(ping.headers['service-delivery-id']);
    const pingRow = page.getByRole('row', { name: new RegExp(deliveryId) }).first();
    await pingRow.getByRole('cell', { name: 'success', exact: true }).waitFor();
    await pingRow.getByRole('button', { name: `Attempts of ${deliveryId}` }).click();
    const log = page.getByRole('table', { name: `Attempt log of ${deliveryId}` });
    await log.waitFor();
    expect((await cellsOf(log)).map((cells) => [cells[0], cells[2]])).toEqual([['1', '200']]);

    // Retry of the finished delivery: a second attempt, in the same log.
    await pingRow.getByRole('button', { name: `Retry ${deliveryId}` }).click();
    await waitFor(async () => (await cellsOf(log)).length === 2, 20_000, 'the second attempt in the log');
    expect((await cellsOf(log)).map((cells) => [cells[0], cells[2]])).toEqual([
      ['1', '200'],
      ['2', '200'],
    ]);

    // Recover: the three failed deliveries of the last day go out again.
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await page.getByRole('status').filter({ hasText: 'queued 3' }).waitFor();
    await waitFor(
      async () => failed.every((d) => receiver.requests.some((r) => r.headers['service-delivery-id'] === d.id)),
      20_000,
      'the recovered deliveries',
    );

    // Rotate, after a Confirm: the new secret shown once, and it signs the next delivery.
    await page.getByLabel('Expire current secret in (hours)').fill('1');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    const once = page.getByRole('region', { name: 'New signing secret' });
    const rotated = (await once.locator('code.secret-value').textContent()) ?? '';
    expect(rotated.startsWith('whsec_') && rotated !== endpoint.secret).toBe(true);
    await expectKeptNowhere(page, rotated);
    await page
      .getByRole('table', { name: 'Endpoint' })
      .getByText(`whsec_…${rotated.slice(-4)}`)
      .waitFor();
    await once.getByRole('button', { name: 'Done' }).click();
    await once.waitFor({ state: 'detached' });
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const second = await waitFor(
      async () => receiver.requests.slice(before).find((r) => r.headers['service-event-type'] === 'service.ping'),
      20_000,
      'the second test event',
    );
    expect(verifyWebhook(second.body, second.headers as Record<string, string>, rotated).type).toBe('service.ping');

    // Stats: once every delivery has settled, the page shows what the API counts.
    await waitFor(
      async () => (await deliveriesOf(ws.apiKey, endpoint.id)).every((d) => d.status === 'success'),
      20_000,
      'every delivery to succeed',
    );
    const stats = await waitFor(
      async () => {
        const answer = (await call('GET', `/api/v1/webhooks/${endpoint.id}/stats`, { token: ws.apiKey })).body.data;
        return answer.pending === 0 && answer.succeeded >= 2 ? answer : undefined;
      },
      20_000,
      'the counters',
    );
    await page.getByRole('button', { name: 'Refresh stats' }).click();
    const figures = page.getByRole('group', { name: 'Delivery statistics' }).locator('dl > div');
    const shown = async () =>
      Object.fromEntries(
        await figures.evaluateAll((stats) =>
          stats.map((stat) => [stat.querySelector('dt')?.textContent, stat.querySelector('dd')?.textContent]),
        ),
      );
    await waitFor(async () => (await shown()).Succeeded === String(stats.succeeded), 10_000, 'the stats on the page');
    expect(await shown()).toMatchObject({
      Deliveries: String(stats.deliveries),
      Succeeded: String(stats.succeeded),
      Failed: String(stats.failed),
      Pending: '0',
    });
    await page
      .getByRole('row', { name: new RegExp(second.headers['service-delivery-id'] as string) })
      .getByRole('cell', { name: 'success', exact: true })
      .waitFor();
    await screenshot(page, 'webhook-endpoint', page.getByRole('heading', { name: 'Statistics' }));
    await context.close();
  });
});

describe('a person who is not an admin', () => {
  it('is not offered the admin sections, and sees FORBIDDEN plainly on their addresses', async () => {
    const ws = await newWorkspace();
    const token = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'developer' });
    const { context, page } = await signedIn(browser, token, '/console/audit');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Projects' }).waitFor();
    for (const section of ['Audit log', 'Access keys', 'Webhooks'])
      expect(await nav.getByRole('link', { name: section }).count(), section).toBe(0);
    for (const path of ['/console/audit', '/console/access-keys', '/console/webhooks', '/console/webhooks/we_01JAAAAAAAAAAAAAAAAAAAAAAA']) {
      if (path !== '/console/audit') await page.goto(`${new URL(page.url()).origin}${path}`);
      await page.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
      expect(await page.getByText('Only API keys and people with the admin role may use this page.').count(), path).toBe(1);
    }
    await context.close();
  });
});
