import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';

/**
 * `secrets rotation set|show|off` and `secrets rotate` against the local stack (decisions.md v1.3, "Rotation"): a
 * rotation without a function, whose new value the service writes with the generator the flags gave.
 */
describe('the secrets CLI: rotation', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let folder: string;
  let cache: string;
  let secretId: string;

  /** Runs `secrets …` with the workspace's API key on the test's environment; answers stdout, stderr and the exit status. */
  async function secrets(...args: string[]) {
    const env = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: ws.apiKey,
      SECRETS_PROJECT: 'rotcli',
      SECRETS_ENV: 'prod',
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env });
  }

  /** The secret's rotation as GET /secrets/{id} answers it. */
  const rotationOf = async () => (await call('GET', `/api/v1/secrets/${secretId}`, { token: ws.apiKey })).body.data.rotation;

  beforeAll(async () => {
    ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'rotcli', environment: 'prod' });
    const body = { key: 'DB_PASSWORD', value: 'before' };
    secretId = (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body })).body.data.id;
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-rotation-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('refuses to rotate before rotation is set, and shows none', async () => {
    // Act
    const early = await secrets('rotate', 'DB_PASSWORD');
    const shown = await secrets('rotation', 'show', 'DB_PASSWORD');
    const refused = await secrets('rotation', 'set', 'DB_PASSWORD', '--schedule', 'rate(7 days)', '--function', 'arn:x', '--length', '8');
    // Assess
    expect(early).toMatchObject({ code: 3, stdout: '', stderr: expect.stringMatching(/^secrets: CONFLICT: /) });
    expect(shown).toEqual({ code: 0, stdout: '', stderr: 'secrets: DB_PASSWORD: rotation not configured\n' });
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("option '--function <arn>' cannot be used with option '--length <n>'"),
    });
    expect(await rotationOf()).toBeNull();
  });

  it('sets rotation without a function, rotates now to a generated value under the printed version id, and turns it off', async () => {
    // Act: configure, then start one now
    const configured = cliJson(
      await secrets(
        'rotation',
        'set',
        'DB_PASSWORD',
        '--schedule',
        'rate(30 days)',
        '--duration',
        '2h',
        '--length',
        '24',
        '--exclude-punctuation',
        '--json',
      ),
    );
    const started = await secrets('rotate', 'DB_PASSWORD');
    // The rotation runs in the background: it has ended once lastRotatedAt is set.
    const rotated = await waitFor(async () => ((await rotationOf())?.lastRotatedAt ? rotationOf() : undefined), 20_000, 'lastRotatedAt');
    const value = await secrets('get', 'DB_PASSWORD');
    const history = cliJson(await secrets('history', 'DB_PASSWORD', '--json'));
    const shown = await secrets('rotation', 'show', 'DB_PASSWORD');
    const off = await secrets('rotation', 'off', 'DB_PASSWORD');
    const afterOff = await secrets('rotate', 'DB_PASSWORD');

    // Assess
    expect(configured).toMatchObject({ enabled: true, function: null, schedule: 'rate(30 days)', duration: '2h', lastRotatedAt: null });
    expect(started.code, started.stderr).toBe(0);
    const versionId = started.stdout.trim();
    expect(started.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(rotated).toMatchObject({ enabled: true, function: null });
    expect(value.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/);
    expect(history[0]).toMatchObject({ version: 2, versionId });
    expect(shown.stdout).toMatch(new RegExp(`^last rotated: +${rotated.lastRotatedAt.replace(/\./g, '\\.')}$`, 'm'));
    expect(off).toEqual({ code: 0, stdout: '', stderr: 'DB_PASSWORD: rotation off\n' });
    expect(afterOff).toMatchObject({ code: 3, stderr: expect.stringMatching(/^secrets: CONFLICT: /) });
    expect(await rotationOf()).toMatchObject({ enabled: false, nextRotationAt: null, lastRotatedAt: rotated.lastRotatedAt });
  });
});
