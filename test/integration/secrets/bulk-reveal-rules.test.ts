import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createClient } from '@secrets-service/sdk';
import { call, newWorkspace } from '../../support/api.ts';
import { runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * Hardening v1.3 (decisions.md) through the real routes, the SDK and the CLI: the bulk reveal answers only what the
 * key may reveal, whatever else its rules allow everywhere.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let dev: { project: { id: string; slug: string }; environment: { id: string; slug: string } };
const VALUES = { PUBLIC_URL: 'https://app.example', DATABASE_PASSWORD: 'db-pw-v13', STRIPE_KEY: 'sk_test_v13', NESTED_TOKEN: 'nested-v13' };

const accessKey = async (permissions: unknown[]): Promise<string> => {
  const created = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'v13', permissions } });
  expect(created.status).toBe(201);
  return created.body.data.token;
};

/** "See everything, reveal one value", and the same with write or delete everywhere instead of read. */
const narrowReveal = (everywhere: string) => [
  { actions: [everywhere] },
  { projects: ['app'], environments: ['dev'], keys: ['PUBLIC_URL'], actions: ['reveal'] },
];

beforeAll(async () => {
  ws = await newWorkspace();
  dev = await newEnvironment(ws.apiKey, { project: 'app', environment: 'dev' });
  for (const [key, value] of Object.entries(VALUES)) {
    expect(
      (await call('PUT', `/api/v1/environments/${dev.environment.id}/secrets`, { token: ws.apiKey, body: { key, value } })).status,
    ).toBeLessThan(300);
  }
});

describe('the bulk reveal honours reveal rules of a key that may read, write or delete everything', () => {
  it.each(['read', 'write', 'delete'])('%s everywhere and reveal of PUBLIC_URL: the route answers PUBLIC_URL alone', async (everywhere) => {
    const token = await accessKey(narrowReveal(everywhere));
    const answer = await call('POST', `/api/v1/environments/${dev.environment.id}/secrets/reveal`, { token, body: {} });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((item: { key: string; value: string }) => [item.key, item.value])).toEqual([
      ['PUBLIC_URL', VALUES.PUBLIC_URL],
    ]);
    expect(answer.body.meta.page).toMatchObject({ hasMore: false, nextCursor: null });
    // It still sees every secret of the environment: only the values are held back.
    const listed = await call('GET', `/api/v1/environments/${dev.environment.id}/secrets`, { token });
    expect(listed.body.data.map((item: { key: string }) => item.key).sort()).toEqual(Object.keys(VALUES).sort());
  });

  it('the SDK loadEnvironment gets PUBLIC_URL alone', async () => {
    const client = createClient({ baseUrl: inject('stack').baseUrl, token: await accessKey(narrowReveal('read')) });
    expect(await client.loadEnvironment({ project: 'app', environment: 'dev' })).toEqual({ PUBLIC_URL: VALUES.PUBLIC_URL });
  });

  it('secrets export --format json gets PUBLIC_URL alone', async () => {
    const token = await accessKey(narrowReveal('read'));
    const folder = mkdtempSync(join(tmpdir(), 'secrets-v13-'));
    const env = { ...process.env, SECRETS_API_URL: inject('stack').baseUrl, SECRETS_TOKEN: token, XDG_CACHE_HOME: folder };
    const exported = await runCli(['export', '--format', 'json', '--project', 'app', '--env', 'dev'], { cwd: folder, env });
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({ PUBLIC_URL: VALUES.PUBLIC_URL });
  });

  it('a key that may reveal everything still gets every value', async () => {
    const token = await accessKey([{ actions: ['read', 'reveal'] }]);
    const answer = await call('POST', `/api/v1/environments/${dev.environment.id}/secrets/reveal`, { token, body: {} });
    expect(Object.fromEntries(answer.body.data.map((item: { key: string; value: string }) => [item.key, item.value]))).toEqual(VALUES);
  });
});
