import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * `secrets show KEY`: the record `GET /api/v1/secrets/{secretId}` answers for the key in the current project and
 * environment (--json as the API answers it; labelled lines otherwise), never the value.
 */
describe('the secrets CLI: show', () => {
  const VALUE = 'postgres://user:very-secret-password@db/app';
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let machineToken: string;
  let folder: string;
  let cache: string;
  let secretId: string;

  /** Runs `secrets …` on the test's environment with `token`; answers stdout, stderr and the exit status. */
  function secrets(token: string, ...args: string[]) {
    const env = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: token,
      SECRETS_PROJECT: 'showcli',
      SECRETS_ENV: 'prod',
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env });
  }

  beforeAll(async () => {
    ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'showcli', environment: 'prod' });
    const put = (value: string) =>
      call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'DATABASE_URL', value } });
    await put('first');
    secretId = (await put(VALUE)).body.data.id;
    machineToken = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'cli' } })).body.data.token;
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-show-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('--json prints the record GET /api/v1/secrets/{secretId} answers, and no value', async () => {
    // Act
    const shown = await secrets(machineToken, 'show', 'DATABASE_URL', '--json');
    // Assess
    const record = (await call('GET', `/api/v1/secrets/${secretId}`, { token: ws.apiKey })).body.data;
    expect(cliJson(shown)).toEqual(record);
    expect(record).toMatchObject({ id: secretId, key: 'DATABASE_URL', currentVersion: 2, path: 'showcli/prod/DATABASE_URL' });
    expect(shown.stdout).not.toContain(VALUE);
  });

  it('prints labelled lines by default, never the value', async () => {
    // Act
    const shown = await secrets(machineToken, 'show', 'DATABASE_URL');
    // Assess
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^key: +DATABASE_URL$/m);
    expect(shown.stdout).toMatch(new RegExp(`^id: +${secretId}$`, 'm'));
    expect(shown.stdout).toMatch(/^path: +showcli\/prod\/DATABASE_URL$/m);
    expect(shown.stdout).toMatch(/^version: +2$/m);
    expect(shown.stdout).toMatch(/^rotation: +not configured$/m);
    expect(`${shown.stdout}${shown.stderr}`).not.toContain(VALUE);
  });

  it('a key the environment does not have is NOT_FOUND, exit status 3, nothing on stdout', async () => {
    const missing = await secrets(ws.apiKey, 'show', 'NOPE');
    expect(missing).toMatchObject({ code: 3, stdout: '', stderr: expect.stringContaining('NOT_FOUND') });
  });

  it('--help names the command with an example', async () => {
    const help = await secrets(ws.apiKey, 'show', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example: secrets show DATABASE_URL --json');
    expect((await secrets(ws.apiKey, '--help')).stdout).toMatch(/^ +show \[options\] <key> +print a secret's record/m);
  });
});
