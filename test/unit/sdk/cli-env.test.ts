import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { secrets as secretsCli, useCliHarness } from './cli-harness.ts';
import { ok } from './fake-api.ts';

/** The variables of Hardening v1.3 that run a command of the secret's choosing (PS4 with SHELLOPTS=xtrace, …). */
const GUARDED = ['PS4', 'SHELLOPTS', 'PYTHONWARNINGS', 'BROWSER', 'LD_AUDIT', 'GIT_SSH_COMMAND'];
/** What an `eval "$(secrets export --format shell)"` would otherwise give the user's own shell (v1.2 names). */
const EXPORT_GUARDED = [...GUARDED, 'PATH', 'LD_PRELOAD'];
/** Inert values: the test proves they never arrive, not what they would do. */
const valueOf = (name: string) => `value-of-${name}`;
const skipLine = (name: string) =>
  `secrets: skipped ${name}: a secret may not set it (it changes how the command starts); pass --allow-env ${name} to allow it\n`;
/** The bulk reveal's answer: every value, on one page. */
const revealOf = (values: Record<string, string>) =>
  ok(
    Object.entries(values).map(([key, value]) => ({ key, value })),
    200,
    { page: { nextCursor: null } },
  );

describe('`secrets run` and `secrets export` keep the protected variables out', () => {
  let folder: string;
  let values: Record<string, string>;
  const { stdout, stderr } = useCliHarness({
    api: { api: (request) => (request.path.endsWith('/secrets/reveal') ? revealOf(values) : undefined) },
    env: Object.fromEntries(GUARDED.map((name) => [name, undefined])),
  });
  beforeEach(() => {
    // Prepare: an environment holding every guarded name and one ordinary key, behind a fake API
    folder = mkdtempSync(join(tmpdir(), 'secrets-env-guard-'));
    values = { API_KEY: 'abc', ...Object.fromEntries(EXPORT_GUARDED.map((name) => [name, valueOf(name)])) };
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));
  /** `secrets …` in this process, without the fallback snapshot (nothing written under the user's cache). */
  const secrets = (...args: string[]) => secretsCli(args[0]!, '--no-fallback', ...args.slice(1));
  /** `secrets run [flags] -- node`, whose command writes the environment it was given to a file; answers it. */
  async function runAndReadEnv(...flags: string[]): Promise<Record<string, string>> {
    const file = join(folder, `env-${flags.length}.json`);
    await secrets(
      'run',
      ...flags,
      '--',
      process.execPath,
      '-e',
      'require("node:fs").writeFileSync(process.argv[1], JSON.stringify(process.env))',
      file,
    );
    expect(process.exitCode).toBe(0);
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  }
  /** The names a shell export sets (`export NAME='…'` lines). */
  const shellNames = (text: string) => [...text.matchAll(/^export ([^=]+)=/gm)].map((match) => match[1]);

  it('run: none of them reaches the command, each is named on stderr, never its value', { timeout: 20_000 }, async () => {
    // Act
    const env = await runAndReadEnv();
    // Assess
    expect(env.API_KEY).toBe('abc');
    expect(GUARDED.filter((name) => name in env)).toEqual([]);
    expect(JSON.stringify(env)).not.toContain('value-of-');
    for (const name of GUARDED) expect(stderr).toContain(skipLine(name));
    expect(stderr.join('')).not.toContain('value-of-');
  });

  it('run: --allow-env NAME lets exactly that one through', { timeout: 20_000 }, async () => {
    // Act
    const env = await runAndReadEnv('--allow-env', 'PS4');
    // Assess
    expect(env.PS4).toBe(valueOf('PS4'));
    expect(GUARDED.filter((name) => name !== 'PS4' && name in env)).toEqual([]);
    expect(stderr).not.toContain(skipLine('PS4'));
    for (const name of GUARDED.filter((name) => name !== 'PS4')) expect(stderr).toContain(skipLine(name));
  });

  it.each(['shell', 'dotenv'])('export --format %s: none of them is written, each is named on stderr, never its value', async (format) => {
    // Act
    await secrets('export', '--format', format);
    // Assess
    const text = stdout.join('');
    const written = format === 'shell' ? shellNames(text) : Object.keys(parseDotenv(text));
    expect(process.exitCode ?? 0).toBe(0);
    expect(written).toEqual(['API_KEY']);
    expect(text).not.toContain('value-of-');
    expect(stderr.toSorted()).toEqual(EXPORT_GUARDED.map(skipLine).toSorted());
  });

  it.each(['shell', 'dotenv'])('export --format %s: --allow-env NAME lets exactly that one through', async (format) => {
    // Act
    await secrets('export', '--format', format, '--allow-env', 'GIT_SSH_COMMAND');
    // Assess
    const text = stdout.join('');
    const written = format === 'shell' ? shellNames(text) : Object.keys(parseDotenv(text));
    expect(written).toEqual(['API_KEY', 'GIT_SSH_COMMAND']);
    expect(text).toContain(valueOf('GIT_SSH_COMMAND'));
    expect(stderr.toSorted()).toEqual(
      EXPORT_GUARDED.filter((name) => name !== 'GIT_SSH_COMMAND')
        .map(skipLine)
        .toSorted(),
    );
  });

  const readers: Record<string, (text: string) => unknown> = { json: (text) => JSON.parse(text), yaml: (text) => parseYaml(text) };

  it.each(['json', 'yaml'])('export --format %s is data: it keeps every key and skips nothing', async (format) => {
    // Act
    await secrets('export', '--format', format);
    // Assess
    expect(readers[format]!(stdout.join(''))).toEqual(values);
    expect(stderr).toEqual([]);
  });
});

/** A value dotenv cannot carry exactly (a quote with `$`), recognisable if it ever reached the output. */
const UNWRITABLE = "it's $(touch /tmp/PWNED) value-of-DB_PASSWORD";

describe('secrets export --format dotenv of a value it cannot carry (Hardening v1.4)', () => {
  let values: Record<string, string>;
  // Prepare: an environment behind a fake API
  const { stdout, stderr } = useCliHarness({
    api: { api: (request) => (request.path.endsWith('/secrets/reveal') ? revealOf(values) : undefined) },
  });
  beforeEach(() => {
    values = { API_KEY: 'abc', DB_PASSWORD: UNWRITABLE, 'db.host': 'h' };
  });
  /** `secrets export …` in this process, without the fallback snapshot (nothing written under the user's cache). */
  const exportAs = (format: string) => secretsCli('export', '--no-fallback', '--format', format);

  it('exits 2 naming the key, never the value, and prints nothing on stdout', async () => {
    // Act
    await exportAs('dotenv');
    // Assess
    expect(process.exitCode).toBe(2);
    expect(stdout).toEqual([]);
    const text = stderr.join('');
    expect(text).toContain('secrets: DB_PASSWORD: dotenv cannot carry this value exactly');
    expect(text).toContain('use --format json or shell');
    expect(text).not.toContain('value-of-DB_PASSWORD');
  });

  it('writes the rest once the value is gone, leaving out a key that is not a variable name', async () => {
    // Prepare
    delete values.DB_PASSWORD;
    // Act
    await exportAs('dotenv');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(parseDotenv(stdout.join(''))).toEqual({ API_KEY: 'abc' });
    expect(stderr.join('')).toContain('secrets: skipped db.host');
  });

  it('--format shell and json carry the same value', async () => {
    // Act
    await exportAs('shell');
    await exportAs('json');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout[0]).toContain("export DB_PASSWORD='it'\\''s $(touch /tmp/PWNED) value-of-DB_PASSWORD'\n");
    expect(JSON.parse(stdout[1]!)).toMatchObject({ DB_PASSWORD: UNWRITABLE });
  });
});
