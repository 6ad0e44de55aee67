import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { type Command, Option } from 'commander';
import { childEnvironment, NOT_A_NAME, platformNameCase, PROTECTED_ENV, withoutProtected } from './child-env.js';
import { type Context, UsageError } from './cli-context.js';
import { fallbackOptions, loadWithFallback, type FallbackFlags } from './cli-fallback.js';
import { formatValues, FORMATS, type Format, UnwritableValueError } from './formats.js';

/** `secrets run` and `secrets export`: the environment's secrets into a child process or a format, guarded alike. */

const skipped = (key: string, why = NOT_A_NAME) => process.stderr.write(`secrets: skipped ${key}: ${why}\n`);

/** `--allow-env NAME` of `run` and `export`, repeatable. */
type AllowEnvFlags = { allowEnv?: string[] };
const collect = (name: string, names: string[] | undefined) => [...(names ?? []), name];

/** The protected variables for `--help`, from the one list `run` and `export` check (child-env.ts), 8 to a line. */
function protectedHelp(): string[] {
  const lines: string[] = [];
  for (let at = 0; at < PROTECTED_ENV.length; at += 8) {
    lines.push(`  ${PROTECTED_ENV.slice(at, at + 8).join(', ')}${at + 8 < PROTECTED_ENV.length ? ',' : ''}`);
  }
  return lines;
}

/** The signals `run` passes on to its command (SIGKILL and SIGSTOP cannot be caught). */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/**
 * Runs `command` with the environment's secrets as variables (except the protected ones `allowed` does not name);
 * answers the child's exit status.
 */
async function runChild(values: Record<string, string>, command: string[], allowed: string[]): Promise<number> {
  const env = childEnvironment(values, process.env, { allowed, skip: skipped, nameCase: platformNameCase() });
  const child = spawn(command[0]!, command.slice(1), { env, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  return new Promise((resolve) => {
    const done = (status: number) => {
      for (const signal of FORWARDED) process.off(signal, forward);
      resolve(status);
    };
    // As a shell answers: 127 for a command that cannot be found, 126 for one that cannot be run, 128 + N for signal N.
    child.on('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(`secrets: ${command[0]}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`);
      done(error.code === 'ENOENT' ? 127 : 126);
    });
    child.on('exit', (code, signal) => done(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}

/** The export's text, whole or not at all; a value the format cannot carry is the user's choice of format: exit 2. */
function formatted(values: Record<string, string>, format: Format): string {
  try {
    return formatValues(values, format, skipped);
  } catch (error) {
    throw error instanceof UnwritableValueError ? new UsageError(error.message) : error;
  }
}

/** Registers `run` and `export` on the `secrets` command line. */
export function registerRunAndExport(cli: Command, ctx: () => Context): void {
  fallbackOptions(cli.command('run').description('run a command with every secret as an environment variable').argument('<command...>'))
    .option('--allow-env <name>', 'let a secret set this protected variable; repeatable', collect)
    .addHelpText(
      'after',
      [
        '\nA secret never sets these variables unless --allow-env names it (NAME* is every',
        'name that begins with NAME):',
        ...protectedHelp(),
        'Each one skipped is named on stderr, and the command keeps your own value.',
        'On Windows names match without case.',
        '\nExamples: secrets run -- node server.js',
        '          secrets run --allow-env NODE_OPTIONS --allow-env PATH -- node server.js',
      ].join('\n'),
    )
    .action(async (command: string[], flags: FallbackFlags & AllowEnvFlags) => {
      process.exitCode = await runChild(await loadWithFallback(ctx(), flags), command, flags.allowEnv ?? []);
    });

  fallbackOptions(cli.command('export').description('print every secret in a format'))
    .addOption(new Option('--format <format>', 'the output format').choices([...FORMATS]).default('dotenv'))
    .option('--allow-env <name>', 'let shell and dotenv carry this protected variable; repeatable', collect)
    .addHelpText(
      'after',
      [
        '\nshell and dotenv never carry these variables unless --allow-env names it, as',
        '`run` never sets them (NAME* is every name that begins with NAME):',
        ...protectedHelp(),
        'Each one left out is named on stderr. json and yaml are data and carry every key;',
        'shell and dotenv leave out (named on stderr) a key that is not a variable name',
        '([A-Za-z_][A-Za-z0-9_]*: db/url, a.b).',
        "\ndotenv writes a value in single quotes; one with a ' or a line break in double",
        'quotes with each newline as \\n, if it holds no ", $, `, \\ or carriage return.',
        'A value it cannot carry exactly (also one ending with \\) stops the export, naming',
        'its key, with exit status 2 and nothing on stdout: use --format json or shell.',
        '\nExamples: secrets export --format json > secrets.json',
        '          eval "$(secrets export --format shell --allow-env NODE_ENV)"',
      ].join('\n'),
    )
    .action(async (flags: FallbackFlags & AllowEnvFlags & { format: Format }) => {
      const values = await loadWithFallback(ctx(), flags);
      // shell and dotenv end up in a process environment (`eval`, `--env-file`, dotenv loaders), so they are guarded
      // as `run` is; json and yaml are data.
      const carried =
        flags.format === 'shell' || flags.format === 'dotenv'
          ? withoutProtected(values, { allowed: flags.allowEnv ?? [], skip: skipped, nameCase: platformNameCase() })
          : values;
      process.stdout.write(formatted(carried, flags.format));
    });
}
