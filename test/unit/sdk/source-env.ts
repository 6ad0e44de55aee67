import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shells a `.env` is sourced with: bash, and the POSIX shell (dash on Debian). */
export const SHELLS = ['bash', 'sh'] as const;

/** What a shell holds after `set -a; . ./.env`: its exported variables (by `env -0`: values may hold new lines). */
export interface Sourced {
  env: Map<string, string>;
  stderr: string;
  status: number | null;
}

/** Exported variables from `env -0` output: NAME=VALUE, each ended by NUL (no name or value can hold one). */
function parseEnv0(output: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of output.split('\0').filter(Boolean)) {
    const at = entry.indexOf('=');
    env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return env;
}

/**
 * Writes `text` to `folder/.env` and sources it as a user would load it into a shell (`set -a; . ./.env`) in an empty
 * environment (`env -i`), then lists what that shell exports.
 */
export function sourceEnvFile(shell: (typeof SHELLS)[number], folder: string, text: string): Sourced {
  writeFileSync(join(folder, '.env'), text);
  const run = spawnSync('/usr/bin/env', ['-i', shell, '-c', 'set -a; . ./.env; exec /usr/bin/env -0'], {
    cwd: folder,
    // Not a pipe on stdin: libuv's are sockets, and bash started on a socket reads ~/.bashrc as if run by sshd.
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 10_000,
  });
  return { env: parseEnv0(run.stdout ?? ''), stderr: run.stderr ?? '', status: run.status };
}

/** The variables a shell exports of its own in an empty environment (PWD, SHLVL, _, …): sourcing an empty file. */
export function ownVariables(shell: (typeof SHELLS)[number], folder: string): string[] {
  return [...sourceEnvFile(shell, folder, '').env.keys()];
}
