import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { call, newWorkspace } from '../support/api.ts';
import { consoleUrl, launchBrowser, signedIn } from '../support/browser.ts';
import { newEnvironment } from '../support/secrets.ts';
import { awsKey, client } from '../integration/aws/support.ts';

/**
 * What the console shows of secrets made through the AWS API (decisions.md v1.4, "The AWS API for Terraform and
 * External Secrets Operator"): one created without a value (Terraform's `aws_secretsmanager_secret`) reads
 * "(no value)", offers no Reveal and takes its version 1 from the row; a SecretBinary (External Secrets Operator's
 * PushSecret) reveals as its base64 text marked "binary, base64", and Copy copies that text. Values are samples.
 */
let browser: Browser;
let close: () => Promise<void>;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let sm: ReturnType<typeof client>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
  ws = await newWorkspace();
  sm = client(await awsKey(ws));
});
afterAll(() => close());

type InPage = { getComputedStyle(element: unknown): { fontFamily: string } };
const ROWS = 'table.secrets tbody tr';
/** Bytes that are not UTF-8 text, so only their base64 form can be shown. */
const BINARY = Uint8Array.from([0x00, 0xff, 0xfe, 0x10, 0x80, 0x7f, 0x01]);
const BINARY_BASE64 = Buffer.from(BINARY).toString('base64');
const rowOf = (page: Page, key: string) => page.locator(ROWS).filter({ has: page.getByRole('link', { name: key, exact: true }) });
const versionCell = (page: Page, key: string) => rowOf(page, key).locator('td').nth(1);

/** A fresh environment with the AWS API's secrets named `<project>/<environment>/<key>` in it: a value or none. */
async function awsEnvironment(secrets: Record<string, { SecretString?: string; SecretBinary?: Uint8Array }>) {
  const { project, environment } = await newEnvironment(ws.apiKey, { project: 'Terraform', environment: 'Prod' });
  for (const [key, value] of Object.entries(secrets))
    await sm.send(new CreateSecretCommand({ Name: `${project.slug}/${environment.slug}/${key}`, ...value }));
  const listed = (await call('GET', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey })).body.data as {
    id: string;
    key: string;
  }[];
  const ids = Object.fromEntries(listed.map((secret) => [secret.key, secret.id]));
  return { project, environment, ids };
}

describe('a secret created without a value', () => {
  it('lists as "(no value)" with no Reveal; Set value writes its version 1, then Reveal is offered', async () => {
    const { environment, ids } = await awsEnvironment({ EMPTY: {}, PLAIN: { SecretString: 'sample-value-1' } });
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/environments/${environment.id}`);
    await rowOf(page, 'EMPTY').waitFor();
    expect(await versionCell(page, 'EMPTY').textContent()).toBe('(no value)');
    expect(await versionCell(page, 'PLAIN').textContent()).toBe('1');
    expect(await rowOf(page, 'EMPTY').getByRole('button', { name: 'Reveal' }).count()).toBe(0);
    expect(await rowOf(page, 'PLAIN').getByRole('button', { name: 'Reveal' }).count()).toBe(1);

    const row = rowOf(page, 'EMPTY');
    await row.getByRole('button', { name: 'Set value' }).click();
    await row.getByLabel('Value').fill('sample-value-2');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => versionCell(page, 'EMPTY').textContent()).toBe('1');
    const revealed = await call('POST', `/api/v1/secrets/${ids.EMPTY}/reveal`, { token: ws.apiKey });
    expect(revealed.body.data).toMatchObject({ version: 1, value: 'sample-value-2' });
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByText('sample-value-2').waitFor();
    await context.close();
  });

  it('reads "(no value)" on its page, with no history yet, and in a comparison', async () => {
    const { project, environment, ids } = await awsEnvironment({ EMPTY: {} });
    const staging = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'Staging' } }))
      .body.data;
    await call('PUT', `/api/v1/environments/${staging.id}/secrets`, { token: ws.apiKey, body: { key: 'EMPTY', value: 'sample-value-1' } });
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/secrets/${ids.EMPTY}`);
    await page.getByText('No versions: no value has been written yet.').waitFor();
    const current = page.locator('dl.secret-facts dt:text-is("Current version") + dd');
    expect(await current.textContent()).toMatch(/^\(no value\)/);

    await page.goto(consoleUrl(`/console/projects/${project.id}/compare?a=${environment.id}&b=${staging.id}`));
    const differ = page.getByRole('region', { name: 'Different versions' }).getByRole('row').filter({ hasText: 'EMPTY' });
    await differ.waitFor();
    expect(await differ.locator('td').allTextContents()).toEqual(['EMPTY', '(no value)', 'version 1']);
    await page.getByRole('link', { name: 'EMPTY in Prod: no value' }).waitFor();
    await context.close();
  });
});

describe('a binary value', () => {
  it('reveals as its base64 text marked "binary, base64"; Copy copies that text; a string has no mark', async () => {
    const { environment } = await awsEnvironment({ CERT: { SecretBinary: BINARY }, PLAIN: { SecretString: 'sample-value-1' } });
    const { context, page } = await signedIn(browser, ws.apiKey, `/console/environments/${environment.id}`);
    const row = rowOf(page, 'CERT');
    await row.waitFor();
    expect(await versionCell(page, 'CERT').textContent()).toBe('1');
    await row.getByRole('button', { name: 'Reveal' }).click();
    const value = row.locator('code.value');
    await value.waitFor();
    expect(await value.textContent()).toBe(BINARY_BASE64);
    expect(await row.locator('.encoding').allTextContents()).toEqual(['binary, base64']);
    // In the page: this project compiles with Node's types, not the DOM's.
    const font = await value.evaluate((element) => (globalThis as unknown as InPage).getComputedStyle(element).fontFamily);
    expect(font).toContain('monospace');
    await row.getByRole('button', { name: 'Copy base64' }).click();
    await row.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(BINARY_BASE64);

    const plain = rowOf(page, 'PLAIN');
    await plain.getByRole('button', { name: 'Reveal' }).click();
    await plain.getByText('sample-value-1').waitFor();
    expect(await plain.getByText('binary, base64').count()).toBe(0);
    expect(await plain.getByRole('button', { name: 'Copy', exact: true }).count()).toBe(1);
    await context.close();
  });
});
