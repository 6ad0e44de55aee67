import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';

/**
 * The workspace commands of the `secrets` CLI against the local stack: projects, environments and access keys with
 * their rules and networks, and what a key made by the CLI may then do with `secrets get` and `secrets set`.
 */
describe('the secrets CLI: projects, environments and access keys', () => {
  let apiKey: string;
  let folder: string;
  let cache: string;

  /** Runs `secrets …` in the test folder with the workspace's API key unless told otherwise; answers stdout, stderr and the exit status. */
  async function secrets(args: string[], env: Record<string, string | undefined> = {}) {
    const base = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: apiKey,
      SECRETS_PROJECT: undefined,
      SECRETS_ENV: undefined,
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env: { ...base, ...env } });
  }

  /** Runs `secrets …` that must succeed with JSON on stdout; answers it parsed. */
  async function json(args: string[], env: Record<string, string | undefined> = {}) {
    return cliJson(await secrets([...args, '--json'], env));
  }

  beforeAll(async () => {
    apiKey = (await newWorkspace()).apiKey;
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-admin-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('creates and lists projects and environments, the project from --project or SECRETS_PROJECT', async () => {
    // Act
    const project = await secrets(['projects', 'create', 'Admin CLI']);
    const projects = await secrets(['projects', 'list']);
    const projectsJson = await json(['projects', 'list']);
    const staging = await secrets(['environments', 'create', 'Staging', '--project', 'admin-cli']);
    const prod = await json(['environments', 'create', 'Prod'], { SECRETS_PROJECT: 'admin-cli' });
    const environments = await secrets(['environments', 'list', '--project', 'admin-cli']);
    const environmentsJson = await json(['environments', 'list'], { SECRETS_PROJECT: 'admin-cli' });
    const unknown = await secrets(['environments', 'list', '--project', 'no-such-project']);
    const noProject = await secrets(['environments', 'list']);
    // Assess
    expect([project.code, project.stdout]).toEqual([0, expect.stringMatching(/^proj_\w+\tadmin-cli\n$/)]);
    const projectId = project.stdout.split('\t')[0]!;
    expect(projects.code).toBe(0);
    expect(projects.stdout).toMatch(/^ID +SLUG +NAME +CREATED\n/);
    expect(projects.stdout).toMatch(new RegExp(`^${projectId} +admin-cli +Admin CLI +\\d{4}-`, 'm'));
    expect(projectsJson).toContainEqual(expect.objectContaining({ id: projectId, slug: 'admin-cli', name: 'Admin CLI' }));
    expect([staging.code, staging.stdout]).toEqual([0, expect.stringMatching(/^env_\w+\tstaging\n$/)]);
    expect(prod).toMatchObject({ projectId, slug: 'prod', name: 'Prod' });
    expect(environments.stdout).toMatch(/^ID +SLUG +NAME +CREATED\n/);
    expect(environments.stdout).toMatch(/^env_\w+ +staging +Staging +\d{4}-/m);
    expect(environmentsJson.map((e: { slug: string }) => e.slug).sort()).toEqual(['prod', 'staging']);
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringContaining('NOT_FOUND')]);
    expect([noProject.code, noProject.stderr]).toEqual([2, expect.stringContaining('the project is required')]);
  });

  it('creates an access key with --allow / --deny / --allowed-cidr (the token shown once), lists it without a token, updates it and revokes it', async () => {
    // Prepare
    const rulesFile = join(folder, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify([{ environments: ['dev'], actions: ['write'] }]));
    const filled = { projects: ['*'], environments: ['*'], keys: ['**'] };
    // Act: create (human output), then list, update and revoke
    const created = await secrets([
      'access-keys',
      'create',
      'ci deploy',
      '--allow',
      'projects=admin-cli,web;environments=staging;keys=DB_*;actions=read,reveal',
      '--deny',
      'keys=DB_ROOT;actions=read',
      '--allow',
      'actions=read',
      '--allowed-cidr',
      '203.0.113.0/24',
      '--allowed-cidr',
      '2001:db8::/32',
      '--expires-in-days',
      '30',
    ]);
    const token = created.stdout.trimEnd().split('\n').at(-1)!;
    const listed = await secrets(['access-keys', 'list']);
    const listedJson = await json(['access-keys', 'list']);
    const record = listedJson.find((k: { name: string }) => k.name === 'ci deploy');
    const id = record.id as string;
    const renamed = await json(['access-keys', 'update', id, '--name', 'ci', '--no-allowed-cidrs']);
    const rescoped = await json(['access-keys', 'update', id, '--permissions', rulesFile, '--deny', 'projects=web;actions=read']);
    const human = await secrets(['access-keys', 'update', id, '--allowed-cidr', '198.51.100.7/32']);
    const revoked = await secrets(['access-keys', 'revoke', id]);
    const afterRevoke = await json(['access-keys', 'list']);
    const changeRevoked = await secrets(['access-keys', 'update', id, '--name', 'again']);
    // Assess: the summary, its rules one a line in the shorthand, and the token alone on the last line
    expect(created.code, created.stderr).toBe(0);
    expect(token).toMatch(/^st_\S+$/);
    expect(created.stdout).toMatch(/^id: +ak_\w+$/m);
    expect(created.stdout).toMatch(/^name: +ci deploy$/m);
    expect(created.stdout).toMatch(/^status: +active$/m);
    expect(created.stdout).toMatch(
      /^permissions: +allow projects=admin-cli,web;environments=staging;keys=DB_\*;actions=read,reveal\n +deny projects=\*;environments=\*;keys=DB_ROOT;actions=read\n +allow projects=\*;environments=\*;keys=\*\*;actions=read$/m,
    );
    expect(created.stdout).toMatch(/^allowed CIDRs: +203\.0\.113\.0\/24, 2001:db8::\/32$/m);
    expect(created.stdout).toMatch(/^expires: +\d{4}-\d\d-\d\dT/m);
    expect(created.stdout).toContain('shown only this once');
    // the list: a table and JSON records, never the token
    expect(listed.stdout).toMatch(/^ID +NAME +STATUS +PREFIX +LAST USED +EXPIRES +RULES +CIDRS\n/);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id} +ci deploy +active +${token.slice(0, 10)} +- +\\d{4}-\\S+ +3 +203\\.0\\.113\\.0/24,2001:db8::/32$`, 'm'),
    );
    for (const output of [listed.stdout, JSON.stringify(listedJson)]) expect(output).not.toContain(token);
    expect(listedJson.filter((k: object) => 'token' in k)).toEqual([]);
    expect(record).toMatchObject({
      name: 'ci deploy',
      allowedCidrs: ['203.0.113.0/24', '2001:db8::/32'],
      permissions: [
        { effect: 'allow', projects: ['admin-cli', 'web'], environments: ['staging'], keys: ['DB_*'], actions: ['read', 'reveal'] },
        { ...filled, effect: 'deny', keys: ['DB_ROOT'], actions: ['read'] },
        { ...filled, effect: 'allow', actions: ['read'] },
      ],
    });
    // update: only the given fields change; --permissions and --deny replace the rules, the file's first
    expect(renamed).toMatchObject({ id, name: 'ci', allowedCidrs: [], permissions: record.permissions });
    expect(rescoped).toMatchObject({
      name: 'ci',
      allowedCidrs: [],
      permissions: [
        { ...filled, effect: 'allow', environments: ['dev'], actions: ['write'] },
        { ...filled, effect: 'deny', projects: ['web'], actions: ['read'] },
      ],
    });
    expect([human.code, human.stdout]).toEqual([0, expect.stringMatching(/^allowed CIDRs: +198\.51\.100\.7\/32$/m)]);
    expect(human.stdout).not.toContain(token);
    // revoke, and a revoked key cannot be changed
    expect([revoked.code, revoked.stdout]).toEqual([0, expect.stringMatching(/^status: +revoked$/m)]);
    expect(revoked.stdout).toMatch(/^revoked: +\d{4}-/m);
    expect(afterRevoke.find((k: { id: string }) => k.id === id)).toMatchObject({ status: 'revoked' });
    expect([changeRevoked.code, changeRevoked.stderr]).toEqual([3, expect.stringContaining('CONFLICT')]);
  });

  it('prints the whole answer, token included, with --json', async () => {
    // Act
    const created = await json(['access-keys', 'create', 'scripted', '--allow', 'actions=read']);
    // Assess
    expect(created).toMatchObject({
      id: expect.stringMatching(/^ak_/),
      name: 'scripted',
      status: 'active',
      token: expect.stringMatching(/^st_/),
      allowedCidrs: [],
      expiresAt: null,
    });
    expect(created.tokenPrefix).toBe(created.token.slice(0, 10));
    await secrets(['access-keys', 'revoke', created.id]);
  });

  it('a key allowed read and reveal in one environment gets a value there, is FORBIDDEN to set one, and sees no other environment', async () => {
    // Prepare: a project with a secret in staging and one in prod, made and written with the API key
    for (const args of [
      ['projects', 'create', 'Scoped'],
      ['environments', 'create', 'Staging', '--project', 'scoped'],
      ['environments', 'create', 'Prod', '--project', 'scoped'],
    ]) {
      expect((await secrets(args)).code).toBe(0);
    }
    const target = ['--project', 'scoped', '--env', 'staging'];
    expect((await secrets(['set', 'DB_URL=postgres://staging', ...target])).code).toBe(0);
    expect((await secrets(['set', 'DB_URL=postgres://prod', '--project', 'scoped', '--env', 'prod'])).code).toBe(0);
    const key = await json(['access-keys', 'create', 'reader', '--allow', 'projects=scoped;environments=staging;actions=read,reveal']);
    const asKey = { SECRETS_TOKEN: key.token as string };
    // Act
    const got = await secrets(['get', 'DB_URL', ...target], asKey);
    const set = await secrets(['set', 'DB_URL=changed', ...target], asKey);
    const other = await secrets(['get', 'DB_URL', '--project', 'scoped', '--env', 'prod'], asKey);
    const manage = await secrets(['access-keys', 'list'], asKey);
    const after = await secrets(['get', 'DB_URL', ...target]);
    // Assess
    expect([got.code, got.stdout]).toEqual([0, 'postgres://staging\n']);
    expect([set.code, set.stderr]).toEqual([3, expect.stringContaining('FORBIDDEN')]);
    expect([other.code, other.stderr]).toEqual([3, expect.stringContaining('NOT_FOUND')]);
    expect([manage.code, manage.stderr]).toEqual([3, expect.stringContaining('FORBIDDEN')]);
    expect(after.stdout).toBe('postgres://staging\n');
  });

  it('refuses a bad rule spec, an update without a change, and both --allowed-cidr and --no-allowed-cidrs as usage errors (exit 2), before any request', async () => {
    // Prepare: an API that cannot be reached, so only a usage error can answer 2 (a request would answer 4)
    const offline = { SECRETS_API_URL: 'http://127.0.0.1:9' };
    // Act
    const noActions = await secrets(['access-keys', 'create', 'k', '--allow', 'projects=admin-cli'], offline);
    const unknownField = await secrets(['access-keys', 'create', 'k', '--deny', 'project=x;actions=read'], offline);
    const emptyValue = await secrets(['access-keys', 'create', 'k', '--allow', 'keys=;actions=read'], offline);
    const noChange = await secrets(['access-keys', 'update', 'ak_01J0000000000000000000000'], offline);
    const both = await secrets(
      ['access-keys', 'update', 'ak_01J0000000000000000000000', '--allowed-cidr', '10.0.0.0/8', '--no-allowed-cidrs'],
      offline,
    );
    const badDays = await secrets(['access-keys', 'create', 'k', '--expires-in-days', 'soon'], offline);
    const reached = await secrets(['access-keys', 'list'], offline);
    // Assess
    expect([noActions.code, noActions.stderr]).toEqual([2, expect.stringContaining('actions is required')]);
    expect([unknownField.code, unknownField.stderr]).toEqual([2, expect.stringContaining('unknown field "project"')]);
    expect([emptyValue.code, emptyValue.stderr]).toEqual([2, expect.stringContaining('keys: empty value')]);
    expect([noChange.code, noChange.stderr]).toEqual([2, expect.stringContaining('update needs a change')]);
    expect([both.code, both.stderr]).toEqual([
      2,
      expect.stringContaining("'--no-allowed-cidrs' cannot be used with option '--allowed-cidr"),
    ]);
    expect([badDays.code, badDays.stderr]).toEqual([2, expect.stringContaining('whole number of days')]);
    expect(reached.code).toBe(4);
  });

  it('prints help with an example for every workspace command, and exits 2 for a group without its command', async () => {
    // Prepare
    const groups = {
      projects: ['list', 'create'],
      environments: ['list', 'create'],
      'access-keys': ['create', 'list', 'update', 'revoke'],
    };
    const commands = Object.entries(groups).flatMap(([group, names]) => [[group], ...names.map((name) => [group, name])]);
    // Act
    const helps = await Promise.all(commands.map((command) => secrets([...command, '--help'])));
    const bare = await secrets(['access-keys']);
    // Assess
    for (const [i, help] of helps.entries())
      expect([help.code, help.stdout], commands[i]!.join(' ')).toEqual([0, expect.stringMatching(/Example/)]);
    expect(helps[commands.findIndex((c) => c.join(' ') === 'access-keys create')]!.stdout).toContain(
      'actions (read, reveal, write, delete) is required',
    );
    expect(bare.code).toBe(2);
  });
  it('creates an AWS key pair with --auth aws-sigv4, printing the secret access key once; refuses it with login flags', async () => {
    // Act
    const created = await json(['access-keys', 'create', 'eso', '--auth', 'aws-sigv4']);
    const printed = await secrets(['access-keys', 'create', 'eso-printed', '--auth', 'aws-sigv4']);
    const mixed = await secrets([
      'access-keys',
      'create',
      'x',
      '--auth',
      'aws-sigv4',
      '--principal-arn',
      'arn:aws:iam::123456789012:role/app',
    ]);
    // Assess
    expect(created).toMatchObject({
      token: null,
      auth: { type: 'aws_sigv4', awsAccessKeyId: expect.stringMatching(/^AKSM[A-Z2-7]{16}$/) },
    });
    expect(created.awsSecretAccessKey).toHaveLength(40);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^AWS_ACCESS_KEY_ID=AKSM[A-Z2-7]{16}$/m);
    expect(printed.stdout).toMatch(/^AWS_SECRET_ACCESS_KEY=[A-Za-z0-9+/]{40}$/m);
    expect(printed.stdout).toMatch(/AWS access key id:\s+AKSM/);
    expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringMatching(/--auth aws-sigv4 makes an AWS key pair/)]);
  });

  it('creates keys whose workloads log in: --principal-arn (AWS IAM) or --oidc-issuer with --audience, --subject and --claim; refuses a mix', async () => {
    // Act
    const iam = await json([
      'access-keys',
      'create',
      'lambda',
      '--principal-arn',
      'arn:aws:iam::123456789012:role/app-*',
      '--token-ttl',
      '600',
    ]);
    const oidc = await json([
      'access-keys',
      'create',
      'gha',
      '--oidc-issuer',
      'https://token.actions.githubusercontent.com',
      '--audience',
      'secrets-service',
      '--subject',
      'repo:acme/app:environment:production',
      '--claim',
      'repository_owner=acme',
    ]);
    const printed = await secrets(['access-keys', 'create', 'printed', '--principal-arn', 'arn:aws:iam::123456789012:role/app']);
    const mixed = await secrets([
      'access-keys',
      'create',
      'mixed',
      '--principal-arn',
      'arn:aws:iam::123456789012:role/app',
      '--subject',
      'x',
    ]);
    const ttlAlone = await secrets(['access-keys', 'create', 'ttl', '--token-ttl', '600']);
    const globbedAccount = await secrets(['access-keys', 'create', 'any', '--principal-arn', 'arn:aws:iam::*:role/app']);
    // Assess
    expect(iam).toMatchObject({
      token: null,
      tokenTtlSeconds: 600,
      auth: { type: 'aws_iam', principalArns: ['arn:aws:iam::123456789012:role/app-*'] },
    });
    expect(oidc).toMatchObject({
      token: null,
      tokenTtlSeconds: 900,
      auth: {
        type: 'oidc',
        issuer: 'https://token.actions.githubusercontent.com',
        audience: 'secrets-service',
        subject: 'repo:acme/app:environment:production',
        claims: { repository_owner: 'acme' },
      },
    });
    expect(printed).toMatchObject({ code: 0, stdout: expect.stringContaining('This key has no token: its workloads log in') });
    expect(mixed).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot be mixed') });
    expect(ttlAlone).toMatchObject({ code: 2, stderr: expect.stringContaining('--token-ttl needs --principal-arn or --oidc-issuer') });
    expect(globbedAccount.code).not.toBe(0);
    expect(globbedAccount.stderr).toContain('auth.principalArns.0');
  });
});
