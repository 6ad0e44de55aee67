// The SDK's CLI is compiled with lib esnext.array (sdk/tsconfig.build.json: Array.fromAsync); this harness brings it
// into the repository's program, which stops at es2024.
/// <reference lib="esnext.array" />
import { afterEach, beforeEach, vi } from 'vitest';
import { main } from '../../../sdk/src/cli.ts';
import { fakeApi, type FakeApiOptions } from './fake-api.ts';

/** The connection every CLI test starts from: a token, a project and an environment, no login flags. */
const CLI_ENV: Record<string, string | undefined> = {
  SECRETS_ACCESS_KEY_ID: undefined,
  SECRETS_AUTH: undefined,
  SECRETS_API_URL: 'http://127.0.0.1:3000',
  SECRETS_TOKEN: 'sk_live_unit',
  SECRETS_PROJECT: 'payments',
  SECRETS_ENV: 'production',
};

/** What a CLI test reads: the lines the command wrote, and the stand-in API it talked to. */
export interface CliHarness {
  stdout: string[];
  stderr: string[];
  api: ReturnType<typeof fakeApi>;
}

/**
 * Registers, in the calling `describe`, hooks that run each test's CLI against a stand-in API as `fetch`, capture
 * stdout and stderr, set the connection in the environment (`env` overrides CLI_ENV; `undefined` unsets a name) and
 * undo it all afterwards, exit code included. The arrays are emptied before each test, so they may be destructured.
 */
export function useCliHarness(options: { api?: FakeApiOptions; env?: Record<string, string | undefined> } = {}): CliHarness {
  const harness: CliHarness = { stdout: [], stderr: [], api: fakeApi(options.api) };
  beforeEach(() => {
    harness.stdout.length = 0;
    harness.stderr.length = 0;
    // The stand-in keeps no state but what it records: emptied, it is as new (its logins count from 1 again).
    harness.api.requests.length = 0;
    harness.api.logins.length = 0;
    vi.stubGlobal('fetch', harness.api.fetch);
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (harness.stdout.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (harness.stderr.push(String(chunk)), true));
    for (const [name, value] of Object.entries({ ...CLI_ENV, ...options.env })) vi.stubEnv(name, value);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
  });
  return harness;
}

/** `secrets …` run in this process, as the shell would. */
export const secrets = (...args: string[]) => main(['node', 'secrets', ...args]);

/** The [method, path, body] of each request sent, less the environment's lookup by slugs. */
export const sentPastLookup = (api: CliHarness['api']) =>
  api.requests.filter((r) => !r.path.includes('/by-slug/')).map((r) => [r.method, r.path, r.body ? JSON.parse(r.body) : undefined]);
