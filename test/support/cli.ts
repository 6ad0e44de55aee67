import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'vitest';

/** The SDK's `secrets` CLI, as a user runs it (the built package: `npm run build --workspace @secrets-service/sdk`). */
const BIN = resolve('sdk/bin/secrets.js');

/** How a run of the CLI ended: all it wrote, and its exit status (null when a signal ended it). */
export interface CliRun {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** How to run it: the environment is given whole, so each test decides which of the caller's variables it keeps. */
export interface CliOptions {
  /** The whole environment of the CLI (callers start from `process.env`; an undefined value leaves the name unset). */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** What the CLI reads on stdin, then end of input; null: no stdin at all. Default: end of input at once. */
  stdin?: string | null;
}

/**
 * Starts `secrets …`: `out` holds what it has written so far (for a test that answers a prompt or a browser step
 * while it runs), `done` settles when it exits.
 */
export function startCli(args: string[], options: CliOptions): { out: Omit<CliRun, 'code'>; done: Promise<CliRun> } {
  const { env, cwd, stdin = '' } = options;
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: [stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  // Piped above, so never null (the typings cannot see it through the stdio array built at run time).
  child.stdout!.on('data', (chunk) => (out.stdout += chunk));
  child.stderr!.on('data', (chunk) => (out.stderr += chunk));
  const done = new Promise<CliRun>((settle) => child.on('close', (code) => settle({ ...out, code })));
  if (stdin !== null) child.stdin?.end(stdin);
  return { out, done };
}

/** Runs `secrets …` to its end; answers stdout, stderr and the exit status. */
export function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  return startCli(args, options).done;
}

/** The answer of a run that must have succeeded with JSON on stdout, parsed (its stderr shown if it failed). */
export function cliJson(answer: CliRun) {
  expect(answer, answer.stderr).toMatchObject({ code: 0 });
  return JSON.parse(answer.stdout);
}
