import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Command } from 'commander';
import { parse as parseDotenv } from 'dotenv';
import { registerAdmin } from './cli-admin.js';
import { propose, registerChangeRequests } from './cli-change-requests.js';
import { registerSyncs } from './cli-syncs.js';
import { registerAuditStreams } from './cli-audit-streams.js';
import { registerAudit } from './cli-audit.js';
import { registerDeleted } from './cli-deleted.js';
import {
  connectionOptions,
  connectionOptsOf,
  environmentId,
  EXIT,
  listSecrets,
  report,
  resolveConnection,
  secretId,
  UsageError,
  type Connection,
  type Context,
} from './cli-context.js';
import { registerRunAndExport } from './cli-env.js';
import { registerLogin } from './cli-login.js';
import { registerRotation } from './cli-rotation.js';
import { registerShow } from './cli-show.js';
import { registerLogout } from './cli-sso.js';
import { unwrap } from './client.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** Reads a value from stdin (for `set KEY`), without its final new line. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** The `secrets` command line, ready to parse. */
export function program(): Command {
  const cli = new Command('secrets')
    .exitOverride()
    // Options after a command are that command's (`get KEY --version 2`); the connection options are on both.
    .enablePositionalOptions()
    .version(version)
    .description(
      'Get secrets into programs: run a command with them, export them, read, write and rotate them, propose changes for review; log in with AWS IAM or OIDC; manage projects, environments and access keys.',
    )
    .addHelpText(
      'after',
      [
        '\nCredentials: --token / SECRETS_TOKEN, or an access key that logs in: --access-key-id / SECRETS_ACCESS_KEY_ID',
        "with --auth aws-iam|oidc / SECRETS_AUTH (AWS IAM: the AWS SDK's default credentials, SECRETS_AWS_STS_ENDPOINT,",
        '--server-id / SECRETS_SERVER_ID; OIDC: --oidc-token-file / SECRETS_OIDC_TOKEN_FILE, SECRETS_OIDC_TOKEN, or GitHub',
        'Actions with --oidc-audience / SECRETS_OIDC_AUDIENCE). `secrets login` prints a short-lived token.',
        "With none of these, the session of `secrets login --sso` (a person's sign-in) for that API, until it expires.",
        '\nExit status: 0 done; 1 failed; 2 usage error; 3 the API refused (its code is printed); 4 the API could not be reached or failed (5xx).',
        "`run` exits with the command's own status.",
      ].join('\n'),
    );
  let running: Command = cli;
  cli.hook('preAction', (_root, command) => {
    running = command;
  });
  // The options of the running command and of the commands above it (`secrets access-keys list`): the nearest wins.
  const connection = () => {
    const chain: Command[] = [];
    for (let command: Command | null = running; command; command = command.parent) chain.unshift(command);
    return Object.assign({}, ...chain.map(connectionOptsOf)) as Connection;
  };
  const ctx = () => resolveConnection(connection());
  register(cli, ctx, connection);
  // The connection options go before or after the command (`secrets --env prod get KEY`, `secrets get KEY --env prod`);
  // a group's commands (`rotation set`) carry their own.
  for (const command of [cli, ...cli.commands.filter((c) => c.commands.length === 0)])
    connectionOptions(command, { project: true, env: true });
  // The command groups add to each of their commands the options it uses (environments need a project, nothing else does).
  registerAdmin(cli, connection);
  registerLogin(cli, connection);
  registerLogout(cli);
  return cli;
}

function register(cli: Command, ctx: () => Context, connection: () => Connection): void {
  cli
    .command('setup')
    .description('write .secrets.json with --project and --env, for every command run in this folder or below')
    .addHelpText('after', '\nExample: secrets setup --project payments-api --env production')
    .action(() => {
      const { project, env } = connection();
      if (!project || !env) throw new UsageError('setup needs --project and --env');
      writeFileSync('.secrets.json', `${JSON.stringify({ project, env }, null, 2)}\n`);
    });

  registerRunAndExport(cli, ctx);

  cli
    .command('get')
    .description('print one value (alone, for scripts)')
    .argument('<key>')
    .option('--version <n>', 'an older version (answered as written)')
    .option('--raw', 'the value as written: its references (${KEY}, ${env.KEY}, ${project.env.KEY}) left unresolved')
    .addHelpText('after', '\nExamples: secrets get DATABASE_URL\n          secrets get DATABASE_URL --raw')
    .action(async (key: string, flags: { version?: string; raw?: boolean }) => {
      const c = ctx();
      const options = { raw: flags.raw === true, ...(flags.version ? { version: Number(flags.version) } : {}) };
      const revealed = await c.client.revealByPath(`${c.project}/${c.env}/${key}`, options);
      if (revealed.encoding === 'base64') process.stderr.write(`secrets: ${key} is a binary value: printed base64-encoded\n`);
      process.stdout.write(`${revealed.value}\n`);
    });

  cli
    .command('set')
    .description('write secrets: KEY=VALUE…, or KEY alone to read the value from stdin')
    .argument('<assignments...>')
    .option('--propose <title>', 'write nothing: open a change request of these values, titled TITLE, for review')
    .addHelpText(
      'after',
      '\nExamples: secrets set API_KEY=abc DEBUG=0\n          printf %s "$TOKEN" | secrets set API_TOKEN\n          secrets set API_KEY=abc --propose "Rotate the API key"',
    )
    .action(async (assignments: string[], flags: { propose?: string }) => {
      const c = ctx();
      const pairs =
        assignments.length === 1 && !assignments[0]!.includes('=')
          ? [[assignments[0]!, await readStdin()]]
          : assignments.map((a) => {
              const at = a.indexOf('=');
              if (at <= 0) throw new UsageError(`${a}: expected KEY=VALUE`);
              return [a.slice(0, at), a.slice(at + 1)];
            });
      if (flags.propose !== undefined)
        return propose(
          c,
          flags.propose,
          pairs.map(([key, value]) => ({ key: key!, value: value! })),
        );
      const envId = await environmentId(c);
      for (const [key, value] of pairs) {
        const written = unwrap(
          await c.client.api.PUT('/api/v1/environments/{envId}/secrets', {
            params: { path: { envId } },
            body: { key: key!, value: value! },
          }),
        );
        process.stderr.write(`${written.key}: version ${written.version}\n`);
      }
    });

  cli
    .command('import')
    .description('write the changed keys of a dotenv file (one version per changed key)')
    .argument('<file>')
    .addHelpText('after', '\nExample: secrets import .env.production')
    .action(async (file: string) => {
      const c = ctx();
      const wanted = parseDotenv(readFileSync(file));
      const current = await c.client.loadEnvironment({ project: c.project, environment: c.env, forceFetch: true });
      const envId = await environmentId(c);
      const counts = { created: 0, updated: 0, unchanged: 0 };
      const keys = Object.keys(wanted);
      for (const [i, key] of keys.entries()) {
        if (current[key] === wanted[key]) counts.unchanged++;
        else {
          unwrap(
            await c.client.api.PUT('/api/v1/environments/{envId}/secrets', {
              params: { path: { envId } },
              body: { key, value: wanted[key]! },
            }),
          );
          counts[key in current ? 'updated' : 'created']++;
        }
        if (keys.length > 20 && (i + 1) % 20 === 0) process.stderr.write(`secrets: ${i + 1}/${keys.length}\n`);
      }
      process.stderr.write(`secrets: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged\n`);
    });

  cli
    .command('list')
    .description('list the keys, their versions and when they changed (never a value)')
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExample: secrets list --json')
    .action(async (flags: { json?: boolean }) => {
      const c = ctx();
      const secrets = await listSecrets(c, await environmentId(c));
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(secrets, null, 2)}\n`
          : // A secret created without a value (through the AWS API) has version 0 until its first value.
            secrets.map((s) => `${s.key}\t${s.currentVersion === 0 ? '(no value)' : `v${s.currentVersion}`}\t${s.updatedAt}\n`).join(''),
      );
    });

  cli
    .command('history')
    .description("list a secret's versions (never a value)")
    .argument('<key>')
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExample: secrets history DATABASE_URL')
    .action(async (key: string, flags: { json?: boolean }) => {
      const c = ctx();
      const id = await secretId(c, key);
      const versions = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/secrets/{secretId}/versions', { params: { path: { secretId: id }, query: cursor ? { cursor } : {} } }),
        ),
      );
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(versions, null, 2)}\n`
          : versions
              .map(
                (v) =>
                  `v${v.version}\t${v.createdAt}\t${v.createdBy}${v.rolledBackFrom ? `\trolled back from v${v.rolledBackFrom}` : ''}\n`,
              )
              .join(''),
      );
    });

  cli
    .command('rollback')
    .description("write version N's value again as the next version")
    .argument('<key>')
    .requiredOption('--to <n>', 'the version to restore')
    .addHelpText('after', '\nExample: secrets rollback DATABASE_URL --to 3')
    .action(async (key: string, flags: { to: string }) => {
      const c = ctx();
      const written = unwrap(
        await c.client.api.POST('/api/v1/secrets/{secretId}/rollback', {
          params: { path: { secretId: await secretId(c, key) } },
          body: { version: Number(flags.to) },
        }),
      );
      process.stderr.write(`${written.key}: version ${written.version} (the value of version ${flags.to})\n`);
    });

  registerShow(cli, ctx);
  registerDeleted(cli, ctx);
  registerRotation(cli, ctx);
  registerChangeRequests(cli, connection);
  registerSyncs(cli, connection);
  registerAuditStreams(cli, connection);
  registerAudit(cli, connection);
}

/** Runs the command line `argv` (as `process.argv`) and sets `process.exitCode` (documented in `--help`). */
export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('commander.')) {
      process.exitCode = code === 'commander.helpDisplayed' || code === 'commander.version' ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = report(error);
  }
}
