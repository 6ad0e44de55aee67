import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createClient } from '@secrets-service/sdk';
import { secretsService, type SecretsServiceOptions } from '@secrets-service/sdk/middy';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { stsIdentity, type StsIdentity } from '../../support/login.ts';
import { startOidcIssuer, type OidcIssuer } from '../../support/oidc-issuer.ts';
import { auditEntries, loginKey, revealCount, revokeKey, runSecrets, workloadPlace } from '../../support/workload.ts';

/**
 * The SDK, its middy middleware and the CLI logging in with workload identity (decisions.md, "Workload identity"),
 * against the local stack: AWS IAM through the local STS stand-in with credentials from the AWS SDK's default chain
 * (the environment variables), OIDC with JWTs of a real OpenID provider.
 */

const ROLE = 'arn:aws:iam::123456789012:role/payments-api';
const AUDIENCE = 'secrets-service';
const SUBJECT = 'repo:acme/app:ref:refs/heads/main';
const SECRETS = { DB_PASSWORD: 'hunter2', API_TOKEN: 'tok-123' };
const PROD = [{ projects: ['payments'], environments: ['prod'], actions: ['read', 'reveal'] }];
const TARGET = { project: 'payments', environment: 'prod' };

let issuer: OidcIssuer;
let role: StsIdentity;

/** A fresh workspace holding SECRETS in payments/prod, and an access key of `method` allowed to read them. */
async function keyed(method: 'aws_iam' | 'oidc') {
  const place = await workloadPlace(SECRETS);
  const auth =
    method === 'aws_iam'
      ? { type: 'aws_iam', principalArns: [ROLE] }
      : { type: 'oidc', issuer: issuer.issuer, audience: AUDIENCE, subject: SUBJECT };
  return { ...place, key: await loginKey(place.apiKey, { auth, permissions: PROD }) };
}

/** The role's AWS credentials where the AWS SDK's default chain finds them first: the environment variables. */
function awsCredentialsInEnv(): void {
  vi.stubEnv('AWS_ACCESS_KEY_ID', role.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', role.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_PROFILE', undefined);
}

const mint = () => issuer.mint({ subject: SUBJECT, audience: AUDIENCE });
const logins = async (apiKey: string, accessKeyId: string) =>
  (await auditEntries(apiKey, { action: 'access_key.login', target: accessKeyId })).length;

beforeAll(async () => {
  issuer = await startOidcIssuer(inject('tls'));
  role = await stsIdentity(ROLE);
});

afterAll(async () => {
  await issuer?.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the SDK logs in', () => {
  it('with AWS IAM from the default credential chain: concurrent calls share one login, and a revoked key fails with 401', async () => {
    // Prepare
    const { apiKey, key } = await keyed('aws_iam');
    awsCredentialsInEnv();
    const { baseUrl, awsStsEndpoint } = inject('stack');
    const client = createClient({ baseUrl, auth: { accessKeyId: key.id, method: 'aws_iam', stsEndpoint: awsStsEndpoint } });
    // Act
    const [all, one, environment] = await Promise.all([
      client.loadEnvironment(TARGET),
      client.loadEnvironment({ ...TARGET, keys: ['DB_PASSWORD'] }),
      client.environment('payments', 'prod'),
    ]);
    // Assess
    expect([all, one, environment.slug]).toEqual([SECRETS, { DB_PASSWORD: 'hunter2' }, 'prod']);
    expect(await logins(apiKey, key.id)).toBe(1);
    const [entry] = await auditEntries(apiKey, { action: 'access_key.login', target: key.id });
    expect(entry).toMatchObject({ actorSub: key.identityId, metadata: { method: 'aws_iam', principal: ROLE } });
    await revokeKey(apiKey, key.id);
    await expect(client.loadEnvironment({ ...TARGET, forceFetch: true })).rejects.toMatchObject({ status: 401, code: 'AUTH_REQUIRED' });
  });

  it('with OIDC: the jwt function is asked once per login, and the login serves the calls after it', async () => {
    // Prepare
    const { apiKey, key } = await keyed('oidc');
    let minted = 0;
    const client = createClient({
      baseUrl: inject('stack').baseUrl,
      auth: { accessKeyId: key.id, method: 'oidc', jwt: () => (minted++, mint()) },
    });
    // Act
    const first = await client.loadEnvironment(TARGET);
    const second = await client.loadEnvironment({ ...TARGET, forceFetch: true });
    // Assess
    expect([first, second]).toEqual([SECRETS, SECRETS]);
    expect(minted).toBe(1);
    expect(await logins(apiKey, key.id)).toBe(1);
  });
});

describe('the middy middleware', () => {
  /** A Lambda context as the handler's type asks for it (the middleware adds `secrets`). */
  const context = () => ({ functionName: 'workload' }) as Context & { secrets: Record<string, string> };
  /** A handler behind secretsService that answers the secrets its context got. */
  const handlerWith = (options: SecretsServiceOptions) =>
    // timeoutEarlyInMillis 0: no timer of middy's outlives a test.
    middy({ timeoutEarlyInMillis: 0 })
      .use(secretsService(options))
      .handler(async (_event: unknown, ctx: Context & { secrets?: Record<string, string> }) => ctx.secrets);

  it('loads the environment into context.secrets and reuses it within cacheExpiry: no second reveal', async () => {
    // Prepare
    const { apiKey, envId, key } = await keyed('oidc');
    const client = createClient({ baseUrl: inject('stack').baseUrl, auth: { accessKeyId: key.id, method: 'oidc', jwt: mint } });
    const handler = handlerWith({ ...TARGET, client, cacheExpiry: 60_000 });
    // Act
    const first = await handler({}, context());
    const afterFirst = await revealCount(apiKey, key.identityId, envId);
    const second = await handler({}, context());
    // Assess: the load audits one reveal per secret, and the second invocation none
    expect([first, second]).toEqual([SECRETS, SECRETS]);
    expect(afterFirst).toBe(Object.keys(SECRETS).length);
    expect(await revealCount(apiKey, key.identityId, envId)).toBe(afterFirst);
  });

  it('with cacheExpiry 0 reveals again on each invocation, its client made from SECRETS_API_URL and SECRETS_ACCESS_KEY_ID', async () => {
    // Prepare: no client, as in a Lambda function configured by its environment
    const { apiKey, envId, key } = await keyed('aws_iam');
    awsCredentialsInEnv();
    vi.stubEnv('SECRETS_API_URL', inject('stack').baseUrl);
    vi.stubEnv('SECRETS_ACCESS_KEY_ID', key.id);
    vi.stubEnv('SECRETS_AWS_STS_ENDPOINT', inject('stack').awsStsEndpoint);
    vi.stubEnv('SECRETS_TOKEN', undefined);
    const handler = handlerWith({ ...TARGET, cacheExpiry: 0 });
    // Act
    const first = await handler({}, context());
    const second = await handler({}, context());
    // Assess
    expect([first, second]).toEqual([SECRETS, SECRETS]);
    expect(await revealCount(apiKey, key.identityId, envId)).toBe(2 * Object.keys(SECRETS).length);
    expect(await logins(apiKey, key.id)).toBe(1);
  });
});

describe('the CLI logs in', () => {
  const iamEnv = () => ({
    SECRETS_API_URL: inject('stack').baseUrl,
    SECRETS_AWS_STS_ENDPOINT: inject('stack').awsStsEndpoint,
    AWS_ACCESS_KEY_ID: role.accessKeyId,
    AWS_SECRET_ACCESS_KEY: role.secretAccessKey,
  });

  it('secrets login --format env, from SECRETS_ACCESS_KEY_ID and SECRETS_AUTH=aws-iam, prints a SECRETS_TOKEN line that works', async () => {
    // Prepare
    const { key } = await keyed('aws_iam');
    // Act
    const login = await runSecrets(['login', '--format', 'env'], { ...iamEnv(), SECRETS_ACCESS_KEY_ID: key.id, SECRETS_AUTH: 'aws-iam' });
    // Assess
    expect([login.code, login.stderr]).toEqual([0, '']);
    expect(login.stdout).toMatch(/^SECRETS_TOKEN=st_\S+\n$/);
    const token = login.stdout.trim().slice('SECRETS_TOKEN='.length);
    const reveal = await call('POST', '/api/v1/reveal', { token, body: { path: 'payments/prod/DB_PASSWORD' } });
    expect([reveal.status, reveal.body.data?.value]).toEqual([200, 'hunter2']);
  });

  it('export and get log in by themselves with --access-key-id and --auth aws-iam', async () => {
    // Prepare
    const { key } = await keyed('aws_iam');
    const flags = ['--project', 'payments', '--env', 'prod', '--access-key-id', key.id, '--auth', 'aws-iam'];
    // Act
    const exported = await runSecrets(['export', '--format', 'json', ...flags], iamEnv());
    const got = await runSecrets(['get', 'API_TOKEN', ...flags], iamEnv());
    // Assess
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(JSON.parse(exported.stdout)).toEqual(SECRETS);
    expect([got.code, got.stdout]).toEqual([0, 'tok-123\n']);
  });

  it('with --auth oidc reads the token from SECRETS_OIDC_TOKEN_FILE, for login and for export', async () => {
    // Prepare
    const { key } = await keyed('oidc');
    const file = join(mkdtempSync(join(tmpdir(), 'oidc-token-')), 'token');
    writeFileSync(file, `${await mint()}\n`);
    const env = {
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_ACCESS_KEY_ID: key.id,
      SECRETS_AUTH: 'oidc',
      SECRETS_OIDC_TOKEN_FILE: file,
    };
    // Act
    const login = await runSecrets(['login', '--format', 'json'], env);
    const exported = await runSecrets(['export', '--format', 'json', '--project', 'payments', '--env', 'prod'], env);
    // Assess
    expect([login.code, login.stderr]).toEqual([0, '']);
    expect(JSON.parse(login.stdout)).toMatchObject({
      accessKeyId: key.id,
      identityId: key.identityId,
      token: expect.stringMatching(/^st_/),
    });
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(JSON.parse(exported.stdout)).toEqual(SECRETS);
  });
});
