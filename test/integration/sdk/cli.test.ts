import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseDotenv } from 'dotenv';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { call, newWorkspace } from '../../support/api.ts';
import { runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { writeSnapshot } from '../../../sdk/src/fallback.ts';

const run = promisify(execFile);

describe('the secrets CLI against the local stack', () => {
  let token: string;
  let apiKey: string;
  let folder: string;
  let cache: string;
  const env = () => ({ ...process.env, SECRETS_API_URL: inject('stack').baseUrl, SECRETS_TOKEN: token, XDG_CACHE_HOME: cache });
  /** Runs `secrets …` in the test folder; answers stdout, stderr and the exit status. */
  async function secrets(args: string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}) {
    return runCli(args, { cwd: folder, env: { ...env(), ...options.env }, stdin: options.stdin });
  }

  beforeAll(async () => {
    const ws = await newWorkspace();
    apiKey = ws.apiKey;
    await newEnvironment(ws.apiKey, { project: 'cli', environment: 'prod' });
    token = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'cli' } })).body.data.token;
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('runs the whole cycle: setup, set, set from stdin, get, list, export (4 formats), run, import, history, rollback, delete', async () => {
    expect((await secrets(['setup', '--project', 'cli', '--env', 'prod'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(folder, '.secrets.json'), 'utf8'))).toEqual({ project: 'cli', env: 'prod' });
    expect((await secrets(['set', 'API_KEY=abc', 'MULTI=line1'])).code).toBe(0);
    const tricky = 'it\'s "quoted"\nsecond line $HOME `tick`';
    expect((await secrets(['set', 'TRICKY'], { stdin: `${tricky}\n` })).code).toBe(0);
    expect((await secrets(['get', 'TRICKY'])).stdout).toBe(`${tricky}\n`);
    expect((await secrets(['list'])).stdout).toMatch(/^API_KEY\tv1\t/m);
    const values = { API_KEY: 'abc', MULTI: 'line1', TRICKY: tricky };
    expect(JSON.parse((await secrets(['export', '--format', 'json'])).stdout)).toEqual(values);
    expect(parseYaml((await secrets(['export', '--format', 'yaml'])).stdout)).toEqual(values);
    const withoutTricky = { API_KEY: 'abc', MULTI: 'line1' };
    const unwritable = await secrets(['export', '--format', 'dotenv']);
    expect([unwritable.code, unwritable.stdout]).toEqual([2, '']);
    expect(unwritable.stderr).toContain('TRICKY: dotenv cannot carry this value exactly');
    expect(unwritable.stderr).not.toContain('second line');
    await secrets(['set', 'TRICKY=simple'], {});
    expect(parseDotenv((await secrets(['export', '--format', 'dotenv'])).stdout)).toEqual({ ...withoutTricky, TRICKY: 'simple' });
    await secrets(['set', 'TRICKY'], { stdin: "it's\nmulti" });
    expect(parseDotenv((await secrets(['export', '--format', 'dotenv'])).stdout)).toEqual({ ...withoutTricky, TRICKY: "it's\nmulti" });
    writeFileSync(join(folder, 'env.sh'), (await secrets(['export', '--format', 'shell'])).stdout);
    const sourced = await run('sh', ['-c', '. ./env.sh && printf %s "$TRICKY"'], { cwd: folder });
    expect(sourced.stdout).toBe("it's\nmulti");
    const child = await secrets(['run', '--', process.execPath, '-e', 'process.stdout.write(process.env.API_KEY); process.exit(7)']);
    expect([child.stdout, child.code]).toEqual(['abc', 7]);
    writeFileSync(join(folder, '.env.import'), 'API_KEY=abc\nNEW_ONE="fresh"\nMULTI=changed\n');
    expect((await secrets(['import', '.env.import'])).stderr).toContain('1 created, 1 updated, 1 unchanged');
    expect((await secrets(['history', 'MULTI', '--json'])).stdout).toContain('"version": 2');
    expect((await secrets(['rollback', 'MULTI', '--to', '1'])).code).toBe(0);
    expect((await secrets(['get', 'MULTI'])).stdout).toBe('line1\n');
    expect((await secrets(['delete', 'NEW_ONE'])).code).toBe(0);
    const missing = await secrets(['get', 'NEW_ONE']);
    expect([missing.code, missing.stderr]).toEqual([3, expect.stringContaining('NOT_FOUND')]);
  });

  it('leaves out of dotenv and shell exports the keys they cannot carry, passes signals on, and still runs when the snapshot cannot be saved', async () => {
    // Prepare: keys that are not variable names
    expect((await secrets(['set', 'db/url=postgres://x', 'db.host=h'])).code).toBe(0);
    // Act
    const dotenv = await secrets(['export', '--format', 'dotenv']);
    const shell = await secrets(['export', '--format', 'shell']);
    const json = await secrets(['export', '--format', 'json']);
    const killed = await secrets(['run', '--', 'sh', '-c', 'kill -KILL $$']);
    const hungUp = await secrets(['run', '--', 'sh', '-c', 'kill -HUP $$']);
    const missing = await secrets(['run', '--', 'no-such-command-here']);
    const readOnly = await secrets([
      'run',
      '--fallback',
      '/proc/secrets.snapshot',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(process.env.API_KEY)',
    ]);
    // Assess: dotenv and shell leave out the keys that are not variable names (a.b would run as a command when sourced)
    expect(dotenv.stdout).not.toMatch(/db[./]/);
    expect(dotenv.stderr).toContain('skipped db/url');
    expect(dotenv.stderr).toContain('skipped db.host');
    expect(shell.stdout).not.toMatch(/db[./]/);
    expect(JSON.parse(json.stdout)).toMatchObject({ 'db/url': 'postgres://x', 'db.host': 'h' });
    expect([killed.code, hungUp.code, missing.code]).toEqual([137, 129, 127]);
    expect(missing.stderr).toContain('command not found');
    expect([readOnly.code, readOnly.stdout]).toEqual([0, 'abc']);
    expect(readOnly.stderr).toContain('the fallback snapshot could not be saved');
    await secrets(['delete', 'db/url']);
    await secrets(['delete', 'db.host']);
  });

  it('never lets a secret set NODE_OPTIONS or PATH unless --allow-env names it, and names each one skipped on stderr', async () => {
    // Prepare: secrets that would change how every command starts; the command prints what it got
    expect((await secrets(['set', 'NODE_OPTIONS=--no-deprecation', 'PATH=/nowhere'])).code).toBe(0);
    const show = [
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify([process.env.NODE_OPTIONS ?? null, process.env.PATH ?? null]))',
    ];
    const own = [process.env.NODE_OPTIONS ?? null, process.env.PATH ?? null];
    // Act
    const guarded = await secrets(['run', ...show]);
    const allowed = await secrets(['run', '--allow-env', 'NODE_OPTIONS', ...show]);
    const both = await secrets(['run', '--allow-env', 'NODE_OPTIONS', '--allow-env', 'PATH', ...show]);
    // Assess: without --allow-env the command keeps the parent's own values, and stderr names each (never its value)
    expect([guarded.code, JSON.parse(guarded.stdout)]).toEqual([0, own]);
    expect(guarded.stderr).toContain(
      'secrets: skipped NODE_OPTIONS: a secret may not set it (it changes how the command starts); pass --allow-env NODE_OPTIONS to allow it',
    );
    expect(guarded.stderr).toContain('secrets: skipped PATH: a secret may not set it');
    expect(guarded.stderr).not.toMatch(/nowhere|no-deprecation/);
    expect(JSON.parse(allowed.stdout)).toEqual(['--no-deprecation', own[1]]);
    expect(allowed.stderr).not.toContain('skipped NODE_OPTIONS');
    expect(allowed.stderr).toContain('skipped PATH');
    expect([both.code, JSON.parse(both.stdout), both.stderr]).toEqual([
      0,
      ['--no-deprecation', '/nowhere'],
      expect.not.stringContaining('skipped'),
    ]);
    await secrets(['delete', 'NODE_OPTIONS']);
    await secrets(['delete', 'PATH']);
  });

  it('refuses an http:// API URL that is not loopback before any request, and works over http://127.0.0.1 and http://localhost', async () => {
    // Prepare
    const stack = new URL(inject('stack').baseUrl);
    const viaLocalhost = new URL(stack);
    viaLocalhost.hostname = 'localhost';
    // Act
    const remote = await secrets(['list', '--api-url', 'http://example.com']);
    const fromEnv = await secrets(['list'], { env: { SECRETS_API_URL: 'http://user:hunter2@example.com:8080/prefix' } });
    const numeric = await secrets(['list', '--api-url', stack.origin]);
    const named = await secrets(['list', '--api-url', viaLocalhost.origin]);
    // Assess
    expect([remote.code, remote.stdout]).toEqual([2, '']);
    expect(remote.stderr).toContain(
      'refused base URL http://example.com: the base URL must use https:// (http:// is allowed only to a loopback host',
    );
    expect([fromEnv.code, fromEnv.stderr]).toEqual([2, expect.stringContaining('refused base URL http://example.com:8080:')]);
    expect(fromEnv.stderr).not.toContain('hunter2');
    expect([stack.hostname, numeric.code, numeric.stdout]).toEqual(['127.0.0.1', 0, expect.stringMatching(/^API_KEY\tv1\t/m)]);
    expect([named.code, named.stdout]).toEqual([0, numeric.stdout]);
  });

  it('does not use a fallback snapshot that others may read or that is older than --fallback-max-age, and says why', async () => {
    // Prepare: a snapshot saved by a run, then opened to others; another one sealed eight days ago
    const print = ['--', process.execPath, '-e', 'process.stdout.write(process.env.API_KEY ?? "none")'];
    const offline = { env: { SECRETS_API_URL: 'http://127.0.0.1:9' } };
    const file = join(cache, 'hardening.snapshot');
    expect((await secrets(['run', '--fallback', file, ...print])).code).toBe(0);
    const old = join(cache, 'old.snapshot');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 8 * 86_400_000);
    try {
      writeSnapshot(old, token, { project: 'cli', env: 'prod' }, { API_KEY: 'eight days old' });
    } finally {
      vi.useRealTimers();
    }
    // Act
    const closed = await secrets(['run', '--fallback', file, ...print], offline);
    chmodSync(file, 0o644);
    const open = await secrets(['run', '--fallback', file, ...print], offline);
    const tooOld = await secrets(['run', '--fallback', old, ...print], offline);
    const longer = await secrets(['run', '--fallback', old, '--fallback-max-age', '9d', ...print], offline);
    const bad = await secrets(['run', '--fallback-max-age', '7x', ...print]);
    // Assess: exit status 4 (unreachable) and no command run when the snapshot is refused
    expect([closed.code, closed.stdout]).toEqual([0, 'abc']);
    expect([open.code, open.stdout]).toEqual([4, '']);
    expect(open.stderr).toContain(`secrets: not using the fallback snapshot at ${file}: its mode is 644`);
    expect([tooOld.code, tooOld.stdout]).toEqual([4, '']);
    expect(tooOld.stderr).toContain('it was saved 8 days ago, longer than --fallback-max-age (7 days)');
    expect([longer.code, longer.stdout]).toEqual([0, 'eight days old']);
    expect(longer.stderr).toContain('using the fallback snapshot from 8 days ago');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("option '--fallback-max-age <duration>' argument '7x' is invalid")]);
  });

  it('falls back to the encrypted snapshot when the API is unreachable, never when the token is revoked', async () => {
    // Prepare: one successful run writes the snapshot
    expect((await secrets(['run', '--', process.execPath, '-e', 'process.exit(0)'])).code).toBe(0);
    const [file] = readdirSync(join(cache, 'secrets'));
    const snapshot = join(cache, 'secrets', file!);
    expect(statSync(snapshot).mode & 0o777).toBe(0o600);
    expect(readFileSync(snapshot, 'utf8')).not.toContain('abc');
    // Act: the API unreachable (a closed port), then the token revoked
    const offline = await secrets(['run', '--', process.execPath, '-e', 'process.stdout.write(process.env.API_KEY)'], {
      env: { SECRETS_API_URL: 'http://127.0.0.1:9' },
    });
    const keyId = (await call('GET', '/api/v1/access-keys', { token: apiKey })).body.data.find(
      (k: { name: string }) => k.name === 'cli',
    ).id;
    await call('POST', `/api/v1/access-keys/${keyId}/revoke`, { token: apiKey });
    const revoked = await secrets(['run', '--', process.execPath, '-e', 'process.stdout.write(process.env.API_KEY ?? "none")']);
    // Assess
    expect(offline.stdout).toBe('abc');
    expect(offline.stderr).toMatch(/fallback snapshot from \d+ minutes? ago/);
    expect([revoked.code, revoked.stdout]).toEqual([3, '']);
    expect(revoked.stderr).toContain('AUTH_REQUIRED');
  });

  it('deletes within a recovery window, lists what can be restored, restores it whole, and purges with --force', async () => {
    // With the API key: an earlier test revokes the access key's token.
    const admin = (args: string[]) => secrets(args, { env: { SECRETS_TOKEN: apiKey } });
    await admin(['setup', '--project', 'cli', '--env', 'prod']);
    await admin(['set', 'KEEP_ME=one']);
    await admin(['set', 'KEEP_ME=two']);
    const deleted = await admin(['delete', 'KEEP_ME', '--recovery-window-days', '30']);
    expect(deleted).toMatchObject({ code: 0, stderr: 'KEEP_ME: deleted; restorable for 30 days (secrets restore KEEP_ME)\n' });
    expect((await admin(['get', 'KEEP_ME'])).code).not.toBe(0);
    const listed = JSON.parse((await admin(['deleted', '--json'])).stdout) as {
      key: string;
      currentVersion: number;
      deletedAt: string;
      purgeAt: string;
    }[];
    const entry = listed.find((s) => s.key === 'KEEP_ME')!;
    expect(entry.currentVersion).toBe(2);
    expect(Date.parse(entry.purgeAt) - Date.parse(entry.deletedAt)).toBe(30 * 86_400_000);
    expect((await admin(['deleted'])).stdout).toMatch(/^KEEP_ME\s+sec_\w+\s+2\s+/m);
    expect((await admin(['restore', 'KEEP_ME'])).stderr).toBe('KEEP_ME: restored at version 2\n');
    expect((await admin(['get', 'KEEP_ME'])).stdout).toBe('two\n');
    expect((await admin(['delete', 'KEEP_ME', '--force'])).stderr).toBe('KEEP_ME: deleted and purged\n');
    expect(JSON.parse((await admin(['deleted', '--json'])).stdout).map((s: { key: string }) => s.key)).not.toContain('KEEP_ME');
    expect((await admin(['restore', 'KEEP_ME'])).code).not.toBe(0);
    expect((await admin(['delete', 'ANY', '--recovery-window-days', '3'])).code).toBe(2);
    expect((await admin(['delete', 'ANY', '--force', '--recovery-window-days', '7'])).code).toBe(2);
  });

  it('prints help with an example for every command, and exits 2 on a usage error', async () => {
    expect((await secrets(['--help'])).stdout).toContain('Exit status');
    for (const command of [
      'setup',
      'run',
      'export',
      'get',
      'set',
      'import',
      'list',
      'history',
      'rollback',
      'delete',
      'deleted',
      'restore',
    ]) {
      expect((await secrets([command, '--help'])).stdout, command).toMatch(/Example/);
    }
    expect((await secrets(['frobnicate'])).code).toBe(2);
    expect((await secrets(['list'], { env: { SECRETS_API_URL: '' } })).code).toBe(2);
  });
});
