// The SDK's CLI is compiled with lib esnext.array (sdk/tsconfig.build.json: Array.fromAsync); this test brings it into
// the repository's program, which stops at es2024.
/// <reference lib="esnext.array" />
import { parse as parseDotenv } from 'dotenv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../sdk/src/cli.ts';
import { fakeApi, ok } from './fake-api.ts';

/** A value dotenv cannot carry exactly (a quote with `$`), recognisable if it ever reached the output. */
const UNWRITABLE = "it's $(touch /tmp/PWNED) value-of-DB_PASSWORD";

describe('secrets export --format dotenv of a value it cannot carry (Hardening v1.4)', () => {
  let stdout: string[];
  let stderr: string[];
  let values: Record<string, string>;
  beforeEach(() => {
    // Prepare: an environment behind a fake API
    stdout = [];
    stderr = [];
    values = { API_KEY: 'abc', DB_PASSWORD: UNWRITABLE, 'db.host': 'h' };
    const reveal = () =>
      ok(
        Object.entries(values).map(([key, value]) => ({ key, value })),
        200,
        { page: { nextCursor: null } },
      );
    vi.stubGlobal('fetch', fakeApi({ api: (request) => (request.path.endsWith('/secrets/reveal') ? reveal() : undefined) }).fetch);
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    for (const name of ['SECRETS_ACCESS_KEY_ID', 'SECRETS_AUTH']) vi.stubEnv(name, undefined);
    vi.stubEnv('SECRETS_API_URL', 'http://127.0.0.1:3000');
    vi.stubEnv('SECRETS_TOKEN', 'sk_live_unit');
    vi.stubEnv('SECRETS_PROJECT', 'payments');
    vi.stubEnv('SECRETS_ENV', 'production');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
  });
  /** `secrets export …` in this process, without the fallback snapshot (nothing written under the user's cache). */
  const exportAs = (format: string) => main(['node', 'secrets', 'export', '--no-fallback', '--format', format]);

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
