import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createClient } from '@secrets-service/sdk';
import { call, newWorkspace } from '../../support/api.ts';
import { runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * Secret references through the CLI (decisions.md v1.4, "Secret references"): `get` answers the resolved value,
 * `get --raw` the text as written, and a reference that cannot be resolved fails the command, naming it; `export`
 * and `run` load the environment resolved, or as written with `--raw`.
 */
describe('the secrets CLI: references', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let folder: string;
  let cache: string;

  /** Runs `secrets …` on the test's environment with the workspace's API key. */
  function secrets(...args: string[]) {
    const env = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: ws.apiKey,
      SECRETS_PROJECT: 'refcli',
      SECRETS_ENV: 'prod',
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env });
  }

  beforeAll(async () => {
    // Prepare: DATABASE_URL references DB_HOST, which exists; BROKEN references a key that does not
    ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'refcli', environment: 'prod' });
    const put = (key: string, value: string) =>
      call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value } });
    await put('DB_HOST', 'db.internal');
    await put('DATABASE_URL', 'postgres://${DB_HOST}/app');
    await put('BROKEN', 'x-${NOT_THERE}');
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-refs-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('get answers the resolved value, get --raw the text as written', async () => {
    // Act
    const resolved = await secrets('get', 'DATABASE_URL');
    const raw = await secrets('get', 'DATABASE_URL', '--raw');
    // Assess
    expect(resolved).toMatchObject({ code: 0, stdout: 'postgres://db.internal/app\n' });
    expect(raw).toMatchObject({ code: 0, stdout: 'postgres://${DB_HOST}/app\n' });
  });

  it('a reference that cannot be resolved exits non-zero, names it on stderr and prints no value', async () => {
    // Act
    const broken = await secrets('get', 'BROKEN');
    // Assess
    expect(broken.code).toBe(3);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain('CONFLICT');
    expect(broken.stderr).toMatch(/^secrets: \$\{NOT_THERE\}: unresolvable$/m);
    expect((await secrets('get', 'BROKEN', '--raw')).stdout).toBe('x-${NOT_THERE}\n');
  });

  it("the SDK's loadEnvironment resolves, and with raw answers the text, each cached on its own", async () => {
    // Prepare
    const client = createClient({ baseUrl: inject('stack').baseUrl, token: ws.apiKey });
    const target = { project: 'refcli', environment: 'prod', keys: ['DATABASE_URL'] };
    // Act
    const resolved = await client.loadEnvironment(target);
    const raw = await client.loadEnvironment({ ...target, raw: true });
    // Assess
    expect(resolved).toEqual({ DATABASE_URL: 'postgres://db.internal/app' });
    expect(raw).toEqual({ DATABASE_URL: 'postgres://${DB_HOST}/app' });
    expect(await client.loadEnvironment(target)).toEqual(resolved);
  });

  it('export and run resolve the environment; with --raw they answer it as written, from the API only', async () => {
    // Act
    const resolved = await secrets('export', '--format', 'json', '--no-fallback');
    const raw = await secrets('export', '--format', 'json', '--raw');
    const run = await secrets('run', '--raw', '--', process.execPath, '-e', 'process.stdout.write(process.env.DATABASE_URL)');
    const snapshotOnly = await secrets('export', '--raw', '--fallback-only');
    // Assess: the resolved load is refused (BROKEN cannot be resolved), the raw one answers every text
    expect(resolved.code).toBe(3);
    expect(resolved.stderr).toMatch(/^secrets: \$\{NOT_THERE\}: unresolvable$/m);
    expect(raw.code).toBe(0);
    expect(JSON.parse(raw.stdout)).toEqual({ BROKEN: 'x-${NOT_THERE}', DATABASE_URL: 'postgres://${DB_HOST}/app', DB_HOST: 'db.internal' });
    expect(run).toMatchObject({ code: 0, stdout: 'postgres://${DB_HOST}/app' });
    expect(snapshotOnly.code).toBe(2);
    expect(snapshotOnly.stderr).toContain('--raw reads the API only');
  });
});
