import { InvalidArgumentError, Option, type Command } from 'commander';
import { describe, isUnreachable, UsageError, type Context } from './cli-context.js';
import { describeAge, parseDuration } from './duration.js';
import { ApiError } from './errors.js';
import { readSnapshot, snapshotPath, writeSnapshot, type SnapshotTarget } from './fallback.js';

/** The fallback flags of `run` and `export`, as commander parses them (`--no-fallback` makes `fallback` false). */
export type FallbackFlags = { fallback?: string | false; fallbackOnly?: boolean; fallbackMaxAge: number; raw?: boolean };

/** One week: long enough to ride out an outage over a weekend, short enough that revoked values do not live on. */
const DEFAULT_MAX_AGE_MS = 7 * 86_400_000;

/**
 * Adds the fallback flags to a command (`run`, `export`), and `--raw`, which reads the API only; a login
 * (`--access-key-id`) uses no snapshot.
 */
export function fallbackOptions(command: Command): Command {
  return command
    .option('--fallback <path>', 'the encrypted snapshot file (default: under the user cache folder)')
    .option('--no-fallback', 'never use or write the snapshot')
    .option('--fallback-only', 'read only the snapshot, never the API')
    .option('--raw', 'values as written: their references (${KEY}, ${env.KEY}, ${project.env.KEY}) left unresolved; the API only')
    .addOption(
      new Option('--fallback-max-age <duration>', 'never use a snapshot saved longer ago than this: 7d, 12h, 30m, 3600s, or seconds')
        .default(DEFAULT_MAX_AGE_MS, '7d')
        .argParser((text: string) => {
          try {
            return parseDuration(text);
          } catch (error) {
            // commander prints it as a usage error (exit status 2) naming the option.
            throw new InvalidArgumentError((error as Error).message);
          }
        }),
    );
}

/** The snapshot's values when it may be used; why not on stderr otherwise (never a value). */
function fromSnapshot(file: string, token: string, target: SnapshotTarget, flags: FallbackFlags): Record<string, string> | undefined {
  const read = readSnapshot(file, token, target, { maxAgeMs: flags.fallbackMaxAge });
  if (!read.snapshot) {
    if (read.reason) process.stderr.write(`secrets: not using the fallback snapshot at ${file}: ${read.reason}\n`);
    return undefined;
  }
  process.stderr.write(`secrets: using the fallback snapshot from ${describeAge(Date.now() - read.snapshot.savedAt)} ago\n`);
  return read.snapshot.values;
}

/** Saves the snapshot after the API answered; a snapshot that cannot be saved is a warning, not a failure. */
function saveSnapshot(file: string, token: string, target: SnapshotTarget, values: Record<string, string>): void {
  try {
    writeSnapshot(file, token, target, values);
  } catch (error) {
    // The API answered: a read-only or full disk, or a path someone else holds, must not stop the command.
    process.stderr.write(`secrets: warning: the fallback snapshot could not be saved at ${file}: ${(error as Error).message}\n`);
  }
}

/** The environment for `run` and `export`: from the API (saving the snapshot), else the snapshot when the API is down. */
/** A binary value reaches a command or a file as its base64 text: said on stderr, naming the key (never the value). */
const noteBinary = (key: string) => process.stderr.write(`secrets: ${key} is a binary value: passed base64-encoded\n`);

export async function loadWithFallback(ctx: Context, flags: FallbackFlags): Promise<Record<string, string>> {
  const target = { project: ctx.project, env: ctx.env };
  const file = snapshotPath(target, typeof flags.fallback === 'string' ? flags.fallback : undefined);
  const { token } = ctx;
  if (flags.raw) {
    // The snapshot holds resolved values: a raw load reads the API only, and leaves the snapshot as it is.
    if (flags.fallbackOnly || typeof flags.fallback === 'string')
      throw new UsageError('--raw reads the API only: the fallback snapshot holds resolved values');
    return ctx.client.loadEnvironment({ project: ctx.project, environment: ctx.env, raw: true, forceFetch: true, onBinary: noteBinary });
  }
  if (token === undefined) {
    // The snapshot is sealed with the token, and a login's token changes with every login: nothing could open it.
    if (flags.fallbackOnly || typeof flags.fallback === 'string')
      throw new UsageError('the fallback snapshot needs --token: a login (--access-key-id) has no lasting token to seal it with');
    return ctx.client.loadEnvironment({ project: ctx.project, environment: ctx.env, forceFetch: true, onBinary: noteBinary });
  }
  if (flags.fallbackOnly) {
    const values = fromSnapshot(file, token, target, flags);
    if (!values) throw new UsageError(`no usable fallback snapshot for this token at ${file}`);
    return values;
  }
  let values: Record<string, string>;
  try {
    values = await ctx.client.loadEnvironment({ project: ctx.project, environment: ctx.env, forceFetch: true, onBinary: noteBinary });
  } catch (error) {
    // Only an API that is down falls back: a refusal (401, 403, 404) must stop the command (a revoked token never
    // falls back), and so must anything that is not a network failure or a 5xx.
    const down = isUnreachable(error) || (error instanceof ApiError && error.status >= 500);
    if (flags.fallback === false || !down) throw error;
    const snapshot = fromSnapshot(file, token, target, flags);
    if (!snapshot) throw error;
    process.stderr.write(
      `secrets: the API could not be reached (${error instanceof ApiError ? error.message : describe(error as Error)})\n`,
    );
    return snapshot;
  }
  if (flags.fallback !== false) saveSnapshot(file, token, target, values);
  return values;
}
