import { InvalidArgumentError, Option, type Command } from 'commander';
import type { operations } from './api.js';
import { connectionOptions, secretId, type Context } from './cli-context.js';
import { printFields, printJson } from './cli-output.js';
import { unwrap } from './client.js';

type Rotation = operations['configureRotation']['responses'][200]['content']['application/json']['data'];
type Generator = NonNullable<operations['configureRotation']['requestBody']['content']['application/json']['generator']>;

/** The generator's flags, by their option names: they shape the value the service writes, so none goes with --function. */
const GENERATOR_FLAGS = [
  'length',
  'excludeCharacters',
  'excludeNumbers',
  'excludePunctuation',
  'excludeUppercase',
  'excludeLowercase',
  'includeSpace',
] as const;

type SetFlags = { schedule: string; duration?: string; function?: string; json?: boolean } & Generator;

/** A whole number of characters from 4 to 4096, for --length (decisions.md, "Rotation"). */
function length(text: string): number {
  if (!/^\d{1,4}$/.test(text) || Number(text) < 4 || Number(text) > 4096)
    throw new InvalidArgumentError('expected a whole number of characters from 4 to 4096');
  return Number(text);
}

/** 1h to 24h in whole hours, for --duration (the window a scheduled start may take). */
function window(text: string): string {
  const hours = /^(\d{1,2})h$/.exec(text);
  if (!hours || Number(hours[1]) < 1 || Number(hours[1]) > 24) throw new InvalidArgumentError('expected 1h to 24h, in whole hours');
  return text;
}

/** A rotation as labelled lines: a time that is not known yet reads "never" or says why it is not. */
function printRotation(key: string, rotation: Rotation): void {
  const next = rotation.nextRotationAt ?? (rotation.enabled ? 'as the cron schedule says' : 'none (rotation is off)');
  printFields([
    ['secret', key],
    ['enabled', rotation.enabled ? 'yes' : 'no'],
    ['function', rotation.function ?? 'none (the service writes a random value)'],
    ['schedule', rotation.schedule],
    ['duration', rotation.duration ?? 'none'],
    ['last rotated', rotation.lastRotatedAt ?? 'never'],
    ['next rotation', next],
  ]);
}

/** The generator of the flags given, or undefined when none was (the API's default then applies). */
function generatorOf(flags: SetFlags): Generator | undefined {
  const given = GENERATOR_FLAGS.filter((name) => flags[name] !== undefined);
  return given.length ? Object.fromEntries(given.map((name) => [name, flags[name]])) : undefined;
}

function registerSet(rotation: Command, ctx: () => Context): void {
  connectionOptions(
    rotation
      .command('set')
      .description("turn on (or change) a secret's rotation; it starts none now (secrets rotate KEY does)")
      .argument('<key>')
      .requiredOption('--schedule <expr>', 'when it rotates: rate(N days) (1 to 1000), rate(N hours) (4 to 23) or cron(…)')
      .option('--duration <hours>', 'the window a scheduled start may take: 1h to 24h', window)
      .addOption(
        new Option('--function <arn>', "a rotation function's Lambda ARN (default none: the service writes a random value)").conflicts([
          ...GENERATOR_FLAGS,
        ]),
      )
      .option('--length <n>', 'without --function: the value is N characters, 4 to 4096 (default 32)', length)
      .option('--exclude-characters <chars>', 'without --function: never these characters')
      .option('--exclude-numbers', 'without --function: no digits')
      .option('--exclude-punctuation', 'without --function: no punctuation')
      .option('--exclude-uppercase', 'without --function: no upper-case letters')
      .option('--exclude-lowercase', 'without --function: no lower-case letters')
      .option('--include-space', 'without --function: spaces too')
      .option('--json', 'the rotation as JSON'),
    { project: true, env: true },
  )
    .addHelpText(
      'after',
      [
        '\nThe generator flags shape the value the service writes; a function writes its own, so they do not go with --function.',
        '\nExamples: secrets rotation set DB_PASSWORD --schedule "rate(30 days)" --length 40 --exclude-punctuation',
        '          secrets rotation set DB_PASSWORD --schedule "cron(0 3 ? * SUN *)" --duration 2h',
        '          secrets rotation set DB_PASSWORD --schedule "rate(7 days)" \\',
        '            --function arn:aws:lambda:us-east-1:123456789012:function:rotate-postgres',
      ].join('\n'),
    )
    .action(async (key: string, flags: SetFlags) => {
      const c = ctx();
      const generator = generatorOf(flags);
      const body = {
        function: flags.function ?? null,
        schedule: flags.schedule,
        ...(flags.duration !== undefined && { duration: flags.duration }),
        ...(generator && { generator }),
      };
      const configured = unwrap(
        await c.client.api.PUT('/api/v1/secrets/{secretId}/rotation', { params: { path: { secretId: await secretId(c, key) } }, body }),
      );
      if (flags.json) return printJson(configured);
      printRotation(key, configured);
    });
}

function registerOffAndShow(rotation: Command, ctx: () => Context): void {
  connectionOptions(
    rotation
      .command('off')
      .description("turn a secret's rotation off: no scheduled rotation starts afterwards (one running ends on its own)")
      .argument('<key>')
      .option('--json', 'the rotation as it now is, as JSON (null when none was configured)'),
    { project: true, env: true },
  )
    .addHelpText('after', '\nExample: secrets rotation off DB_PASSWORD')
    .action(async (key: string, flags: { json?: boolean }) => {
      const c = ctx();
      const cancelled = unwrap(
        await c.client.api.DELETE('/api/v1/secrets/{secretId}/rotation', { params: { path: { secretId: await secretId(c, key) } } }),
      );
      if (flags.json) return printJson(cancelled);
      process.stderr.write(cancelled ? `${key}: rotation off\n` : `${key}: rotation was not configured\n`);
    });

  connectionOptions(
    rotation
      .command('show')
      .description("print a secret's rotation: schedule, function, last and next rotation")
      .argument('<key>')
      .option('--json', 'as JSON (null when none is configured)'),
    { project: true, env: true },
  )
    .addHelpText('after', '\nExample: secrets rotation show DB_PASSWORD')
    .action(async (key: string, flags: { json?: boolean }) => {
      const c = ctx();
      const secret = unwrap(
        await c.client.api.GET('/api/v1/secrets/{secretId}', { params: { path: { secretId: await secretId(c, key) } } }),
      );
      if (flags.json) return printJson(secret.rotation);
      if (secret.rotation) printRotation(key, secret.rotation);
      else process.stderr.write(`secrets: ${key}: rotation not configured\n`);
    });
}

function registerRotate(cli: Command, ctx: () => Context): void {
  cli
    .command('rotate')
    .description('start a rotation of a secret now (its rotation must be configured: secrets rotation set) and print its version id')
    .argument('<key>')
    .option('--json', 'the answer as JSON ({secretId, versionId})')
    .addHelpText(
      'after',
      [
        '\nIt runs in the background: the version id printed is the version it makes; `secrets rotation show KEY` tells when',
        'it has ended (last rotated). A secret without rotation configured, or one rotating already, is CONFLICT.',
        '\nExample: secrets rotate DB_PASSWORD',
      ].join('\n'),
    )
    .action(async (key: string, flags: { json?: boolean }) => {
      const c = ctx();
      const started = unwrap(
        await c.client.api.POST('/api/v1/secrets/{secretId}/rotate', { params: { path: { secretId: await secretId(c, key) } } }),
      );
      if (flags.json) return printJson(started);
      process.stderr.write(`${key}: rotation started (secrets rotation show ${key} tells when it has ended)\n`);
      process.stdout.write(`${started.versionId}\n`);
    });
}

/**
 * `secrets rotation set|off|show KEY` and `secrets rotate KEY` (decisions.md v1.3, "Rotation"); the group's commands
 * take the connection and target options themselves, `rotate` gets them with the other top-level commands.
 */
export function registerRotation(cli: Command, ctx: () => Context): void {
  const rotation = cli
    .command('rotation')
    .description("configure a secret's rotation (a schedule, and a function or the service's random values), turn it off, show it")
    .addHelpText(
      'after',
      [
        '\nExamples: secrets rotation set DB_PASSWORD --schedule "rate(30 days)" --length 40',
        '          secrets rotation show DB_PASSWORD',
        '          secrets rotation off DB_PASSWORD',
        '          secrets rotate DB_PASSWORD          (start one now)',
      ].join('\n'),
    );
  registerSet(rotation, ctx);
  registerOffAndShow(rotation, ctx);
  registerRotate(cli, ctx);
}
