// The SDK's CLI is compiled with lib esnext.array (sdk/tsconfig.build.json: Array.fromAsync); this test brings it into
// the repository's program, which stops at es2024.
/// <reference lib="esnext.array" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CredentialError, githubActionsToken, oidcTokenSource, resolveCredential, type AuthFlags } from '../../../sdk/src/cli-auth.ts';
import { secrets, useCliHarness } from './cli-harness.ts';
import { ok } from './fake-api.ts';

describe('the CLI credential: flags before environment variables', () => {
  it.each<[string, AuthFlags, Record<string, string>, unknown]>([
    [
      '--token over SECRETS_ACCESS_KEY_ID',
      { token: 'st_flag' },
      { SECRETS_ACCESS_KEY_ID: 'ak_env', SECRETS_AUTH: 'oidc' },
      { token: 'st_flag' },
    ],
    [
      '--access-key-id over SECRETS_TOKEN',
      { accessKeyId: 'ak_flag', auth: 'aws-iam' },
      { SECRETS_TOKEN: 'st_env' },
      { auth: { accessKeyId: 'ak_flag', method: 'aws_iam' } },
    ],
    [
      '--access-key-id over SECRETS_ACCESS_KEY_ID',
      { accessKeyId: 'ak_flag' },
      { SECRETS_ACCESS_KEY_ID: 'ak_env', SECRETS_AUTH: 'aws-iam' },
      { auth: { accessKeyId: 'ak_flag', method: 'aws_iam' } },
    ],
    [
      '--auth over SECRETS_AUTH',
      { auth: 'oidc' },
      { SECRETS_ACCESS_KEY_ID: 'ak_env', SECRETS_AUTH: 'aws-iam', SECRETS_OIDC_TOKEN: 'jwt' },
      { auth: { accessKeyId: 'ak_env', method: 'oidc', jwt: 'jwt' } },
    ],
    ['SECRETS_TOKEN alone', {}, { SECRETS_TOKEN: 'st_env', SECRETS_AUTH: 'oidc' }, { token: 'st_env' }],
    [
      '--server-id over SECRETS_SERVER_ID',
      { serverId: 'flag:443' },
      { SECRETS_ACCESS_KEY_ID: 'ak_env', SECRETS_AUTH: 'aws-iam', SECRETS_SERVER_ID: 'env:443' },
      { auth: { accessKeyId: 'ak_env', method: 'aws_iam', serverId: 'flag:443' } },
    ],
    [
      'SECRETS_SERVER_ID',
      {},
      { SECRETS_ACCESS_KEY_ID: 'ak_env', SECRETS_AUTH: 'aws-iam', SECRETS_SERVER_ID: 'env:443' },
      { auth: { accessKeyId: 'ak_env', method: 'aws_iam', serverId: 'env:443' } },
    ],
  ])('%s', (_name, flags, env, expected) => {
    // Act
    const credential = resolveCredential(flags, env);
    // Assess
    expect(credential).toEqual(expected);
  });

  it.each<[string, AuthFlags, Record<string, string>, RegExp]>([
    ['--token with --access-key-id', { token: 'st', accessKeyId: 'ak' }, {}, /--token conflicts with --access-key-id and --auth/],
    ['--token with --auth', { token: 'st', auth: 'oidc' }, {}, /--token conflicts/],
    ['--auth without an access key', { auth: 'aws-iam' }, {}, /^--auth needs --access-key-id \(or SECRETS_ACCESS_KEY_ID\)$/],
    [
      'an access key without a method',
      { accessKeyId: 'ak' },
      {},
      /--access-key-id needs --auth aws-iam or --auth oidc \(or SECRETS_AUTH\)/,
    ],
    ['an unknown SECRETS_AUTH', { accessKeyId: 'ak' }, { SECRETS_AUTH: 'aws_iam' }, /SECRETS_AUTH must be aws-iam or oidc/],
    [
      'SECRETS_TOKEN and SECRETS_ACCESS_KEY_ID both',
      {},
      { SECRETS_TOKEN: 'st', SECRETS_ACCESS_KEY_ID: 'ak', SECRETS_AUTH: 'oidc' },
      /both set/,
    ],
    ['nothing', {}, {}, /a credential is required: --token or SECRETS_TOKEN, or --access-key-id with --auth/],
    ['--oidc-token-file with aws-iam', { accessKeyId: 'ak', auth: 'aws-iam', oidcTokenFile: '/t' }, {}, /go with --auth oidc/],
    [
      '--server-id with oidc',
      { accessKeyId: 'ak', auth: 'oidc', serverId: 'x' },
      { SECRETS_OIDC_TOKEN: 'jwt' },
      /--server-id goes with --auth aws-iam/,
    ],
    [
      'oidc without a token',
      { accessKeyId: 'ak', auth: 'oidc' },
      {},
      /--auth oidc needs a token: --oidc-token-file, SECRETS_OIDC_TOKEN_FILE, SECRETS_OIDC_TOKEN, or GitHub Actions/,
    ],
  ])('refuses %s', (_name, flags, env, message) => {
    // Act
    const resolve = () => resolveCredential(flags, env);
    // Assess
    expect(resolve).toThrow(CredentialError);
    expect(resolve).toThrow(message);
  });

  it('for `secrets login`, counts only the access key: SECRETS_TOKEN is ignored, --token refused', () => {
    // Act
    const login = resolveCredential(
      {},
      { SECRETS_TOKEN: 'st', SECRETS_ACCESS_KEY_ID: 'ak', SECRETS_AUTH: 'oidc', SECRETS_OIDC_TOKEN: 'jwt' },
      { accessKeyOnly: true },
    );
    // Assess
    expect(login).toEqual({ auth: { accessKeyId: 'ak', method: 'oidc', jwt: 'jwt' } });
    expect(() => resolveCredential({ token: 'st' }, {}, { accessKeyOnly: true })).toThrow(
      /login takes --access-key-id with --auth, not --token/,
    );
  });
});

describe('the OIDC token of the CLI', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sdk-cli-login-'));
  const file = (name: string, text: string) => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };
  afterEach(() => vi.unstubAllGlobals());

  it('comes from --oidc-token-file first, then SECRETS_OIDC_TOKEN_FILE, then SECRETS_OIDC_TOKEN, read at each login', async () => {
    // Prepare
    const flagged = file('flag.jwt', 'jwt-from-flag\n');
    const env = {
      SECRETS_OIDC_TOKEN_FILE: file('env.jwt', 'jwt-from-env-file'),
      SECRETS_OIDC_TOKEN: 'jwt-from-env',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://gh/x?a=1',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'r',
    };
    // Act
    const fromFlag = oidcTokenSource({ oidcTokenFile: flagged }, env) as () => Promise<string>;
    const first = await fromFlag();
    writeFileSync(flagged, 'jwt-rotated');
    const rotated = await fromFlag();
    const fromEnvFile = await (oidcTokenSource({}, env) as () => Promise<string>)();
    const fromEnv = oidcTokenSource({}, { ...env, SECRETS_OIDC_TOKEN_FILE: undefined });
    // Assess
    expect([first, rotated, fromEnvFile, fromEnv]).toEqual(['jwt-from-flag', 'jwt-rotated', 'jwt-from-env-file', 'jwt-from-env']);
  });

  it("comes from GitHub Actions' token request, with the audience and the request token as bearer", async () => {
    // Prepare
    const asked: { url: string; authorization: string | null }[] = [];
    vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      asked.push({ url: request.url, authorization: request.headers.get('authorization') });
      return Response.json({ count: 1, value: 'jwt-from-github' });
    });
    const env = {
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/id?api-version=2.0',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'runner-request-token',
      SECRETS_OIDC_AUDIENCE: 'env-audience',
    };
    // Act
    const token = await (oidcTokenSource({ oidcAudience: 'secrets service' }, env) as () => Promise<string>)();
    // Assess
    expect(token).toBe('jwt-from-github');
    expect(asked).toEqual([
      { url: 'https://token.actions.example/id?api-version=2.0&audience=secrets%20service', authorization: 'bearer runner-request-token' },
    ]);
  });

  it("names GitHub's refusal by its status, never the request token", async () => {
    // Prepare
    vi.stubGlobal('fetch', async () => new Response('nope', { status: 403 }));
    // Act
    const failure = await githubActionsToken('https://token.actions.example/id?x=1', 'runner-request-token', 'aud').catch(
      (error: Error) => error,
    );
    // Assess
    expect((failure as Error).message).toBe(
      'GitHub Actions refused the OIDC token request (HTTP 403); does the job have permissions: id-token: write?',
    );
  });
});

describe('`secrets login` and commands that log in', () => {
  const { stdout, stderr, api } = useCliHarness({
    api: {
      login: (n, body) =>
        ok({ token: `st_login_${n}`, expiresAt: '2030-01-01T00:00:00.000Z', accessKeyId: body.accessKeyId, identityId: 'mid_1' }),
    },
    // No token, project or environment: each test logs in, and names what it exports.
    env: {
      SECRETS_TOKEN: undefined,
      SECRETS_OIDC_TOKEN_FILE: undefined,
      SECRETS_OIDC_TOKEN: 'eyJ.cli.jwt',
      SECRETS_PROJECT: undefined,
      SECRETS_ENV: undefined,
      ACTIONS_ID_TOKEN_REQUEST_URL: undefined,
    },
  });

  it('--format env prints SECRETS_TOKEN=… and nothing else on stdout', async () => {
    // Act
    await secrets('login', '--access-key-id', 'ak_ci', '--auth', 'oidc', '--format', 'env');
    // Assess
    expect([stdout.join(''), stderr.join(''), process.exitCode ?? 0]).toEqual(['SECRETS_TOKEN=st_login_1\n', '', 0]);
    expect(api.logins.map((l) => [l.body, l.authorization])).toEqual([
      [{ accessKeyId: 'ak_ci', method: 'oidc', jwt: 'eyJ.cli.jwt' }, null],
    ]);
  });

  it('prints the bare token by default and the whole answer with --format json; the access key may come from the environment', async () => {
    // Prepare
    vi.stubEnv('SECRETS_ACCESS_KEY_ID', 'ak_env');
    vi.stubEnv('SECRETS_AUTH', 'oidc');
    // Act
    await secrets('login');
    const bare = stdout.splice(0).join('');
    await secrets('login', '--format', 'json');
    // Assess
    expect(bare).toBe('st_login_1\n');
    expect(JSON.parse(stdout.join(''))).toEqual({
      token: 'st_login_2',
      expiresAt: '2030-01-01T00:00:00.000Z',
      accessKeyId: 'ak_env',
      identityId: 'mid_1',
    });
  });

  it('is a usage error (exit status 2) with --auth but no access key, before any request', async () => {
    // Act
    await secrets('login', '--auth', 'oidc');
    // Assess
    expect(process.exitCode).toBe(2);
    expect(stderr.join('')).toContain('secrets: --auth needs --access-key-id (or SECRETS_ACCESS_KEY_ID)');
    expect(stdout.join('')).toBe('');
    expect(api.logins).toHaveLength(0);
  });

  it('lets any command log in with --access-key-id instead of --token', async () => {
    // Prepare
    vi.stubEnv('SECRETS_TOKEN', 'st_ignored_for_the_flag');
    // Act
    await secrets(
      'export',
      '--format',
      'json',
      '--project',
      'payments',
      '--env',
      'production',
      '--access-key-id',
      'ak_ci',
      '--auth',
      'oidc',
    );
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(JSON.parse(stdout.join(''))).toEqual({ DATABASE_URL: 'postgres://db' });
    expect(api.logins).toHaveLength(1);
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer st_login_1']));
  });
});
