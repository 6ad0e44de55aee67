import { InvalidArgumentError, Option, type Command } from 'commander';
import type { components, operations } from './api.js';
import { connectionOptions, UsageError, type ApiContext } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { formatRule, parseRuleSpec, readPermissionsFile, RuleSpecError, type PermissionRule } from './cli-rules.js';
import { unwrap } from './client.js';

type AccessKey = components['schemas']['AccessKey'];

type RuleFlags = { permissions?: string; allow?: PermissionRule[]; deny?: PermissionRule[] };
type CidrFlags = { allowedCidr?: string[] };

const RULES_HELP = [
  '\nA rule spec is `;`-separated field=values parts; values are comma-separated glob patterns (* and ?; ** in keys):',
  '  projects=api,web;environments=staging;keys=DB_*;actions=read,reveal',
  'actions (read, reveal, write, delete) is required; projects, environments and keys default to every one.',
  'A deny rule wins over every allow rule. --permissions FILE.json holds a JSON array of rules',
  '  [{"effect": "allow"|"deny", "projects": […], "environments": […], "keys": […], "actions": […]}]',
  "and --allow / --deny rules are added after the file's, in the order given.",
].join('\n');

const append = (value: string, list: string[] | undefined) => [...(list ?? []), value];

/** A whole number of days above 0, for --expires-in-days (the API sets the upper bound). */
function days(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new InvalidArgumentError('expected a whole number of days above 0');
  return Number(text);
}

/**
 * Adds --permissions, --allow and --deny. --allow and --deny collect into one list, so the rules keep the order in
 * which they were given; a spec that cannot be parsed is a usage error naming the problem.
 */
function ruleOptions(command: Command): Command {
  const given: PermissionRule[] = [];
  const collect = (effect: 'allow' | 'deny') => (spec: string) => {
    try {
      given.push(parseRuleSpec(spec, effect));
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
    return given;
  };
  return command
    .option('--permissions <file>', 'the rules, from a JSON file (an array of rules)')
    .option('--allow <spec>', 'a rule that allows, e.g. "environments=staging;actions=read,reveal"; repeatable', collect('allow'))
    .option('--deny <spec>', 'a rule that denies, in the same form; repeatable', collect('deny'));
}

/** The rules of --permissions, then those of --allow and --deny; undefined when none of them is given. */
function rulesOf(flags: RuleFlags): PermissionRule[] | undefined {
  const given = flags.allow ?? flags.deny;
  if (flags.permissions === undefined && given === undefined) return undefined;
  try {
    return [...(flags.permissions === undefined ? [] : readPermissionsFile(flags.permissions)), ...(given ?? [])];
  } catch (error) {
    throw error instanceof RuleSpecError ? new UsageError(`--permissions ${error.message}`) : error;
  }
}

/** A key's record, one field a line, its rules one a line in the form --allow / --deny take (never a token). */
function printKey(key: AccessKey): void {
  printFields([
    ['id', key.id],
    ['name', key.name],
    ['status', key.status],
    [
      'token prefix',
      key.tokenPrefix ?? (key.auth.type === 'aws_sigv4' ? '- (an AWS key pair)' : '- (its workloads log in: secrets login)'),
    ],
    ...(key.auth.type === 'aws_sigv4' ? [['AWS access key id', key.auth.awsAccessKeyId] as [string, string]] : []),
    ['permissions', key.permissions.map(formatRule)],
    ['allowed CIDRs', key.allowedCidrs.length ? key.allowedCidrs.join(', ') : 'anywhere'],
    ['expires', key.expiresAt ?? 'never'],
    ...(key.revokedAt ? [['revoked', key.revokedAt] as [string, string]] : []),
  ]);
}

type AuthFlags = {
  auth?: 'aws-sigv4';
  principalArn?: string[];
  oidcIssuer?: string;
  audience?: string;
  subject?: string;
  claim?: string[];
  tokenTtl?: number;
};

/** A whole number of seconds, for --token-ttl (the API sets the bounds: 60 to 43200). */
function seconds(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new InvalidArgumentError('expected a whole number of seconds');
  return Number(text);
}

/** `auth` as a create sends it. */
type CreateAuth = NonNullable<NonNullable<operations['createAccessKey']['requestBody']>['content']['application/json']['auth']>;

/**
 * How the key's workloads prove themselves, from the flags: --auth aws-sigv4 (an AWS key pair), --principal-arn
 * (AWS IAM), or --oidc-issuer with --audience and --subject (and --claim); none, a key with its own token. Mixing
 * them is a usage error.
 */
function authOf(flags: AuthFlags): CreateAuth | undefined {
  const oidc = flags.oidcIssuer !== undefined || flags.audience !== undefined || flags.subject !== undefined || flags.claim !== undefined;
  if (flags.auth === 'aws-sigv4') {
    if (flags.principalArn || oidc || flags.tokenTtl !== undefined)
      throw new UsageError('--auth aws-sigv4 makes an AWS key pair: it takes no --principal-arn, --oidc-issuer or --token-ttl');
    return { type: 'aws_sigv4' };
  }
  if (flags.principalArn && oidc)
    throw new UsageError('--principal-arn (AWS IAM) and --oidc-issuer/--audience/--subject/--claim (OIDC) cannot be mixed');
  if (flags.principalArn) return { type: 'aws_iam', principalArns: flags.principalArn };
  if (!oidc) {
    if (flags.tokenTtl !== undefined)
      throw new UsageError('--token-ttl needs --principal-arn or --oidc-issuer: a key with its own token has no login tokens');
    return undefined;
  }
  if (!flags.oidcIssuer || !flags.audience || !flags.subject)
    throw new UsageError('an OIDC key needs --oidc-issuer, --audience and --subject');
  const claims: Record<string, string> = {};
  for (const pair of flags.claim ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--claim ${JSON.stringify(pair)}: expected name=value`);
    claims[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { type: 'oidc', issuer: flags.oidcIssuer, audience: flags.audience, subject: flags.subject, ...(flags.claim && { claims }) };
}

function registerCreate(keys: Command, api: () => ApiContext): void {
  const create = ruleOptions(
    keys
      .command('create')
      .description('create an access key (a machine token) and print its token, shown only this once')
      .argument('<name>'),
  )
    .option('--allowed-cidr <cidr>', 'accept the token only from this network (IPv4 or IPv6 CIDR); repeatable; default anywhere', append)
    .option('--expires-in-days <n>', 'expire after N days (default: never)', days)
    .option(
      '--principal-arn <arn>',
      'no token: workloads with this IAM role or user log in (a glob, e.g. arn:aws:iam::123456789012:role/app-*); repeatable',
      append,
    )
    .option('--oidc-issuer <url>', 'no token: workloads with an OIDC token of this issuer log in (with --audience and --subject)')
    .option('--audience <aud>', 'the audience the OIDC token must name')
    .option('--subject <pattern>', "the OIDC token's sub, a glob (e.g. repo:acme/app:ref:refs/heads/main)")
    .option('--claim <name=value>', 'a claim the OIDC token must carry with this value; repeatable', append)
    .option('--token-ttl <seconds>', 'life of each login token, 60 to 43200 (default 900)', seconds)
    .addOption(
      new Option(
        '--auth <type>',
        'aws-sigv4: no token: an AWS key pair for the AWS Secrets Manager API (POST /), its secret shown once',
      ).choices(['aws-sigv4']),
    )
    .option('--json', 'the whole answer as JSON, token included');
  connectionOptions(create, { login: false })
    .addHelpText(
      'after',
      `${RULES_HELP}\n\nWithout rules the key may read, reveal, write and delete every secret.\n\nExamples: secrets access-keys create ci-staging --allow 'environments=staging;actions=read,reveal' --allowed-cidr 203.0.113.0/24\n          secrets access-keys create deploy --permissions rules.json --deny 'keys=ROOT_*;actions=read' --expires-in-days 90\n          secrets access-keys create payments-lambda --principal-arn 'arn:aws:iam::123456789012:role/payments-*' --allow 'projects=payments;actions=reveal'\n          secrets access-keys create gha-deploy --oidc-issuer https://token.actions.githubusercontent.com --audience secrets-service --subject 'repo:acme/app:environment:production' --claim repository_owner=acme`,
    )
    .action(async (name: string, flags: RuleFlags & CidrFlags & AuthFlags & { expiresInDays?: number; json?: boolean }) => {
      const permissions = rulesOf(flags);
      const auth = authOf(flags);
      const c = api();
      const body = {
        name,
        ...(flags.expiresInDays !== undefined && { expiresInDays: flags.expiresInDays }),
        ...(permissions && { permissions }),
        ...(flags.allowedCidr && { allowedCidrs: flags.allowedCidr }),
        ...(auth && { auth }),
        ...(flags.tokenTtl !== undefined && { tokenTtlSeconds: flags.tokenTtl }),
      };
      const created = unwrap(await c.client.api.POST('/api/v1/access-keys', { body }));
      if (flags.json) return printJson(created);
      const { token, awsSecretAccessKey, ...record } = created;
      printKey(record);
      if (awsSecretAccessKey !== undefined && record.auth.type === 'aws_sigv4') {
        process.stdout.write(
          `\nThe secret access key is shown only this once: store it now, it cannot be shown again.\nAWS_ACCESS_KEY_ID=${record.auth.awsAccessKeyId}\nAWS_SECRET_ACCESS_KEY=${awsSecretAccessKey}\n`,
        );
        return;
      }
      process.stdout.write(
        token === null
          ? `\nThis key has no token: its workloads log in (secrets login --access-key-id ${record.id} --auth …).\n`
          : `\nThe token is shown only this once: store it now, it cannot be shown again.\n${token}\n`,
      );
    });
}

function registerList(keys: Command, api: () => ApiContext): void {
  connectionOptions(
    keys.command('list').description("list the workspace's access keys (never a token)").option('--json', 'as JSON (an array of records)'),
  )
    .addHelpText('after', '\nExample: secrets access-keys list --json')
    .action(async (flags: { json?: boolean }) => {
      const c = api();
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/access-keys', { params: { query: { limit: '200', ...(cursor ? { cursor } : {}) } } }),
        ),
      );
      if (flags.json) return printJson(all);
      const row = (k: AccessKey) => [
        k.id,
        k.name,
        k.status,
        k.tokenPrefix ?? '-',
        k.lastUsedAt ?? '-',
        k.expiresAt ?? 'never',
        String(k.permissions.length),
        k.allowedCidrs.join(',') || 'anywhere',
      ];
      printTable(['ID', 'NAME', 'STATUS', 'PREFIX', 'LAST USED', 'EXPIRES', 'RULES', 'CIDRS'], all.map(row), 'access keys');
    });
}

function registerUpdate(keys: Command, api: () => ApiContext): void {
  const update = ruleOptions(
    keys
      .command('update')
      .description("change an access key's name, rules or networks (the rest stays) and print it")
      .argument('<id>')
      .option('--name <name>', 'a new name'),
  )
    .option('--allowed-cidr <cidr>', 'accept the token only from these networks (replaces the list); repeatable', append)
    .addOption(new Option('--no-allowed-cidrs', 'accept the token from anywhere again').conflicts('allowedCidr'))
    .option('--json', 'the updated record as JSON');
  connectionOptions(update)
    .addHelpText(
      'after',
      `${RULES_HELP}\nRules given replace all of the key's rules. Takes effect on the key's next request.\n\nExamples: secrets access-keys update ak_01J… --allow 'projects=api;actions=read'\n          secrets access-keys update ak_01J… --name ci --no-allowed-cidrs`,
    )
    .action(async (id: string, flags: RuleFlags & CidrFlags & { name?: string; allowedCidrs: boolean; json?: boolean }) => {
      const permissions = rulesOf(flags);
      const allowedCidrs = flags.allowedCidrs ? flags.allowedCidr : [];
      const body = {
        ...(flags.name !== undefined && { name: flags.name }),
        ...(permissions && { permissions }),
        ...(allowedCidrs && { allowedCidrs }),
      };
      if (Object.keys(body).length === 0)
        throw new UsageError('update needs a change: --name, --permissions, --allow, --deny, --allowed-cidr or --no-allowed-cidrs');
      const c = api();
      const updated = unwrap(await c.client.api.PATCH('/api/v1/access-keys/{id}', { params: { path: { id } }, body }));
      if (flags.json) return printJson(updated);
      printKey(updated);
    });
}

function registerRevoke(keys: Command, api: () => ApiContext): void {
  connectionOptions(
    keys
      .command('revoke')
      .description('revoke an access key: its token stops working at its next request')
      .argument('<id>')
      .option('--json', 'the revoked record as JSON'),
  )
    .addHelpText('after', '\nRevoking a revoked key changes nothing.\n\nExample: secrets access-keys revoke ak_01J…')
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = api();
      const revoked = unwrap(await c.client.api.POST('/api/v1/access-keys/{id}/revoke', { params: { path: { id } } }));
      if (flags.json) return printJson(revoked);
      printKey(revoked);
    });
}

/** `secrets access-keys create|list|update|revoke`: machine tokens, their rules and networks (API keys and admins only). */
export function registerAccessKeys(cli: Command, api: () => ApiContext): void {
  const keys = cli
    .command('access-keys')
    .description('create, list, change and revoke access keys (machine tokens) and their permissions')
    .addHelpText(
      'after',
      [
        '\nNeeds an API key or an admin; a machine token is FORBIDDEN.',
        "\nExamples: secrets access-keys create ci --allow 'projects=api;environments=staging;actions=read,reveal'",
        '          secrets access-keys list',
        "          secrets access-keys update ak_01J… --deny 'keys=ROOT_*;actions=read'",
        '          secrets access-keys revoke ak_01J…',
      ].join('\n'),
    );
  registerCreate(keys, api);
  registerList(keys, api);
  registerUpdate(keys, api);
  registerRevoke(keys, api);
}
