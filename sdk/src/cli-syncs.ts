import { Option, type Command } from 'commander';
import type { operations } from './api.js';
import { connectionOptions, environmentId, resolveApi, resolveConnection, UsageError, type Connection } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';
import { readCredential } from './cli-credential.js';

type Sync = operations['getSync']['responses'][200]['content']['application/json']['data'];
type NewDestination = operations['createSync']['requestBody']['content']['application/json']['destination'];

interface CreateFlags {
  githubRepo?: string;
  githubEnvironment?: string;
  githubApiUrl?: string;
  tokenStdin?: boolean;
  awsSsm?: boolean;
  awsSecretsManager?: boolean;
  region?: string;
  pathPrefix?: string;
  namePrefix?: string;
  roleArn?: string;
  externalId?: string;
  kmsKeyId?: string;
  mode?: 'secret-per-key' | 'json';
  keys?: string;
  prune?: boolean;
  json?: boolean;
}

/** Reads GitHub's token from stdin, or SECRETS_SYNC_TOKEN (cli-credential.ts). */
const readToken = (fromStdin: boolean | undefined) =>
  readCredential('token-stdin', fromStdin, 'SECRETS_SYNC_TOKEN', 'a GitHub sync needs its token');

/** The AWS fields both AWS destinations share, those given. */
const awsFields = (flags: CreateFlags) => ({
  region: flags.region ?? '',
  ...(flags.roleArn !== undefined && { roleArn: flags.roleArn }),
  ...(flags.externalId !== undefined && { externalId: flags.externalId }),
  ...(flags.kmsKeyId !== undefined && { kmsKeyId: flags.kmsKeyId }),
});

/** The destination the flags name: exactly one of --github-repo, --aws-ssm, --aws-secrets-manager. */
async function destinationOf(flags: CreateFlags): Promise<NewDestination> {
  const chosen = [flags.githubRepo !== undefined, flags.awsSsm, flags.awsSecretsManager].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('name one destination: --github-repo OWNER/REPO, --aws-ssm or --aws-secrets-manager');
  if (flags.githubRepo !== undefined) {
    return {
      type: 'github-actions',
      repository: flags.githubRepo,
      token: await readToken(flags.tokenStdin),
      ...(flags.githubEnvironment !== undefined && { environment: flags.githubEnvironment }),
      ...(flags.githubApiUrl !== undefined && { apiUrl: flags.githubApiUrl }),
    };
  }
  if (flags.region === undefined) throw new UsageError('an AWS destination needs --region');
  if (flags.awsSsm) {
    if (flags.pathPrefix === undefined) throw new UsageError('--aws-ssm needs --path-prefix');
    return { type: 'aws-ssm', ...awsFields(flags), pathPrefix: flags.pathPrefix };
  }
  if (flags.namePrefix === undefined) throw new UsageError('--aws-secrets-manager needs --name-prefix');
  return { type: 'aws-secrets-manager', ...awsFields(flags), namePrefix: flags.namePrefix, ...(flags.mode && { mode: flags.mode }) };
}

/** Where a sync pushes, in one line. */
function placeOf(destination: Sync['destination']): string {
  if (destination.type === 'github-actions')
    return `github:${destination.repository}${destination.environment ? ` (environment ${destination.environment})` : ''}`;
  if (destination.type === 'aws-ssm') return `ssm:${destination.region}:${destination.pathPrefix}`;
  return `secretsmanager:${destination.region}:${destination.namePrefix}${destination.mode === 'json' ? ' (json)' : ''}`;
}

function printSync(sync: Sync): void {
  printFields([
    ['id', sync.id],
    ['environment', sync.environmentId],
    ['destination', placeOf(sync.destination)],
    ['keys', sync.keys],
    ['prune', String(sync.prune)],
    ['status', sync.status],
    ['last synced', sync.lastSyncedAt ?? '-'],
    ['last error', sync.lastError ?? '-'],
    ['created', sync.createdAt],
  ]);
}

function registerCreate(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('create')
      .description("push the target environment's values to GitHub Actions, Parameter Store or Secrets Manager, on every change")
      .option('--github-repo <owner/repo>', "GitHub Actions: the repository's secrets")
      .option('--github-environment <name>', "GitHub Actions: a repository environment's secrets instead")
      .option('--github-api-url <url>', 'GitHub Enterprise Server: its API root')
      .option('--token-stdin', "read GitHub's token from stdin (else SECRETS_SYNC_TOKEN; never an argument)")
      .option('--aws-ssm', 'AWS Systems Manager Parameter Store: SecureString parameters <path-prefix><KEY>')
      .option('--aws-secrets-manager', 'AWS Secrets Manager: one secret per key <name-prefix><KEY> (or --mode json)')
      .option('--region <region>', 'AWS: the region')
      .option('--path-prefix <prefix>', 'Parameter Store: the prefix of every parameter')
      .option('--name-prefix <prefix>', 'Secrets Manager: the prefix of every secret (with --mode json: the secret)')
      .option('--role-arn <arn>', 'AWS: a role to assume')
      .option('--external-id <id>', 'AWS: the external id of --role-arn')
      .option('--kms-key-id <id>', 'AWS: the KMS key to encrypt with')
      .addOption(new Option('--mode <mode>', 'Secrets Manager: a secret per key, or one JSON secret').choices(['secret-per-key', 'json']))
      .option('--keys <pattern>', 'only keys matching this pattern (default **: every key)')
      .option('--prune', 'delete at the destination the keys this sync wrote that left the environment')
      .option('--json', 'the sync as JSON'),
    { project: true, env: true },
  )
    .addHelpText(
      'after',
      [
        '\nExamples: gh auth token | secrets syncs create --env production --github-repo acme/web --token-stdin',
        '          secrets syncs create --env production --aws-ssm --region eu-west-1 --path-prefix /web/prod/ --prune',
        '          secrets syncs create --env production --aws-secrets-manager --region us-east-1 --name-prefix web/prod --mode json',
      ].join('\n'),
    )
    .action(async (flags: CreateFlags) => {
      const destination = await destinationOf(flags);
      const c = resolveConnection(connection());
      const body = {
        environmentId: await environmentId(c),
        destination,
        ...(flags.keys !== undefined && { keys: flags.keys }),
        ...(flags.prune && { prune: true }),
      };
      const made = unwrap(await c.client.api.POST('/api/v1/syncs', { body }));
      if (flags.json) return printJson(made);
      process.stderr.write(`secrets: sync ${made.id} to ${placeOf(made.destination)} created; a full sync is queued\n`);
      process.stdout.write(`${made.id}\n`);
    });
}

function registerReads(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('list')
      .description("list the workspace's syncs (with --env: the target environment's), newest first")
      .option('--json', 'as JSON (an array of syncs)'),
    { project: true, env: true },
  )
    .addHelpText('after', '\nExamples: secrets syncs list\n          secrets syncs list --env production --json')
    .action(async (flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      // Only an --env given here filters: a default target (SECRETS_ENV, .secrets.json) would hide the other syncs.
      const envId = connection().env === undefined ? undefined : await environmentId(resolveConnection(connection()));
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/syncs', {
            params: { query: { limit: '200', ...(envId && { environmentId: envId }), ...(cursor ? { cursor } : {}) } },
          }),
        ),
      );
      if (flags.json) return printJson(all);
      const row = (s: Sync) => [s.id, s.status, placeOf(s.destination), s.keys, s.lastSyncedAt ?? '-', s.lastError ?? ''];
      printTable(['ID', 'STATUS', 'DESTINATION', 'KEYS', 'LAST SYNCED', 'LAST ERROR'], all.map(row), 'syncs');
    });

  connectionOptions(group.command('show').description('print a sync: destination, status, last push and error').argument('<id>'))
    .option('--json', 'as JSON (the API record)')
    .addHelpText('after', '\nExample: secrets syncs show sync_…')
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const sync = unwrap(await c.client.api.GET('/api/v1/syncs/{id}', { params: { path: { id } } }));
      if (flags.json) return printJson(sync);
      printSync(sync);
    });
}

function registerActions(group: Command, connection: () => Connection): void {
  const act = (name: string, description: string, send: (c: ReturnType<typeof resolveApi>, id: string) => Promise<string>) =>
    connectionOptions(group.command(name).description(description).argument('<id>'))
      .addHelpText('after', `\nExample: secrets syncs ${name} sync_…`)
      .action(async (id: string) => {
        process.stderr.write(`${id}: ${await send(resolveApi(connection()), id)}\n`);
      });
  const patch = async (c: ReturnType<typeof resolveApi>, id: string, paused: boolean) =>
    unwrap(await c.client.api.PATCH('/api/v1/syncs/{id}', { params: { path: { id } }, body: { paused } })).status;
  act('run', 'queue a full sync now (a paused sync is refused: resume it)', async (c, id) => {
    unwrap(await c.client.api.POST('/api/v1/syncs/{id}/run', { params: { path: { id } } }));
    return 'a full sync is queued';
  });
  act('pause', 'stop pushing changes until resumed', async (c, id) => `status ${await patch(c, id, true)}`);
  act('resume', 'push again: a full sync is queued', async (c, id) => `status ${await patch(c, id, false)}; a full sync is queued`);
  act('delete', 'delete a sync (what it pushed stays at the destination)', async (c, id) => {
    unwrap(await c.client.api.DELETE('/api/v1/syncs/{id}', { params: { path: { id } } }));
    return 'deleted';
  });
}

/** `secrets syncs create|list|show|run|pause|resume|delete` (decisions.md v1.4, "Syncs"): for admins. */
export function registerSyncs(cli: Command, connection: () => Connection): void {
  const group = cli
    .command('syncs')
    .description(
      "push an environment's values to GitHub Actions, Parameter Store or Secrets Manager: create, list, show, run, pause, resume, delete",
    )
    .addHelpText(
      'after',
      [
        '\nA GitHub token is read from stdin (--token-stdin) or SECRETS_SYNC_TOKEN, never from an argument, and never shown again.',
        '\nExamples: gh auth token | secrets syncs create --env production --github-repo acme/web --token-stdin',
        '          secrets syncs list',
        '          secrets syncs pause sync_…',
      ].join('\n'),
    );
  registerCreate(group, connection);
  registerReads(group, connection);
  registerActions(group, connection);
}
