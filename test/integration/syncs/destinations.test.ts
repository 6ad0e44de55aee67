import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import sodium from 'libsodium-wrappers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { guardedRequest } from '../../../shared/net/guarded-get.ts';
import { parseAllowedCidrs } from '../../../shared/net/ssrf.ts';
import { sealForGithub } from '../../../shared/syncs/destinations/github-actions.ts';
import { makeDestination } from '../../../shared/syncs/destinations/index.ts';
import type { DestinationContext } from '../../../shared/syncs/destinations/index.ts';
import type { Destination } from '../../../shared/syncs/sync-records.ts';
import { newWorkspace } from '../../support/api.ts';
import { startGithubStandIn, type GithubStandIn } from '../../support/github-stand-in.ts';
import { startMoto, type Moto } from '../../support/moto.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { destinationContext, refusal } from '../../unit/syncs/support.ts';
import { awsKey } from '../aws/support.ts';

const TOKEN = 'ghp_stand-in-token-0123456789';
const LOOPBACK = '127.0.0.0/8';
const MOTO_KEYS = { accessKeyId: 'test', secretAccessKey: 'test' };

const contextOf = (over: Partial<DestinationContext> = {}) =>
  destinationContext({ workspaceId: 'ws_test', syncId: 'sync_test', allowPrivateCidrs: LOOPBACK, ...over });

describe('GitHub Actions against the stand-in (which opens every sealed box)', () => {
  let github: GithubStandIn;
  beforeAll(async () => {
    github = await startGithubStandIn({ token: TOKEN });
  });
  afterAll(() => github.close());
  const destinationOf = (environment?: string): Destination => ({
    type: 'github-actions',
    repository: 'acme/web',
    apiUrl: github.apiUrl,
    ...(environment !== undefined && { environment }),
  });

  it('puts sealed values under mapped names with one public-key read per push, and overwrites', async () => {
    const destination = await makeDestination(destinationOf(), contextOf({ token: TOKEN }));
    await destination.put([
      { key: 'db.url', value: 'postgres://one' },
      { key: 'stripe/api_key', value: 'sk_test_1' },
      { key: 'PLAIN', value: 'ünïcödé ✓' },
    ]);
    expect(github.names('acme/web')).toEqual(['DB_URL', 'PLAIN', 'STRIPE_API_KEY']);
    expect(github.secret('acme/web', 'PLAIN')).toBe('ünïcödé ✓');
    expect(github.requests.filter((request) => request.path.endsWith('/public-key'))).toHaveLength(1);
    await destination.put([{ key: 'db.url', value: 'postgres://two' }]);
    expect(github.secret('acme/web', 'DB_URL')).toBe('postgres://two');
    expect(github.requests.at(-1)).toMatchObject({ method: 'PUT', status: 204 });
  });

  it("writes an environment's secrets apart from the repository's", async () => {
    const destination = await makeDestination(destinationOf('production'), contextOf({ token: TOKEN }));
    await destination.put([{ key: 'API_KEY', value: 'prod-value' }]);
    expect(github.secret('acme/web', 'API_KEY', 'production')).toBe('prod-value');
    expect(github.secret('acme/web', 'API_KEY')).toBeUndefined();
    expect(github.requests.at(-1)?.path).toBe('/repos/acme/web/environments/production/secrets/API_KEY');
  });

  it('deletes secrets; one already gone is no error', async () => {
    const destination = await makeDestination(destinationOf(), contextOf({ token: TOKEN }));
    await destination.put([{ key: 'GOING', value: 'soon gone' }]);
    await destination.remove(['going', 'NEVER_THERE']);
    expect(github.secret('acme/web', 'GOING')).toBeUndefined();
    expect(github.requests.slice(-2).map((request) => request.status)).toEqual([204, 404]);
  });

  it("a revoked token (401) and a 5xx are DestinationErrors with GitHub's status and message, never the token", async () => {
    const destination = await makeDestination(destinationOf(), contextOf({ token: TOKEN }));
    github.failNext(401, 1);
    const revoked = await refusal(destination.put([{ key: 'A', value: 'value-a' }]));
    expect(revoked).toBe('GitHub public key: 401 (Bad credentials)');
    github.failNext(503, 1);
    expect(await refusal(destination.remove(['A']))).toBe('GitHub DELETE secret A: 503 (Service Unavailable)');
    const wrongToken = await makeDestination(destinationOf(), contextOf({ token: 'ghp_revoked' }));
    const message = await refusal(wrongToken.put([{ key: 'A', value: 'value-a' }]));
    expect(message).toBe('GitHub public key: 401 (Bad credentials)');
    expect(`${revoked}${message}`).not.toContain('ghp_');
  });

  it('the stand-in refuses a value sealed with another key (so a wrong encryption cannot pass)', async () => {
    await sodium.ready;
    const other = sodium.crypto_box_keypair().publicKey;
    const body = JSON.stringify({ encrypted_value: await sealForGithub('x', sodium.to_base64(other, 1)), key_id: github.keyId });
    const headers = { Authorization: `Bearer ${TOKEN}`, Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };
    const url = `${github.apiUrl}/repos/acme/web/actions/secrets/WRONG`;
    const answer = await guardedRequest(url, {
      method: 'PUT',
      headers,
      body,
      allow: parseAllowedCidrs(LOOPBACK),
      timeoutMs: 5_000,
      maxBytes: 4_096,
    });
    expect(answer).toMatchObject({ kind: 'answered', statusCode: 422 });
    expect(github.secret('acme/web', 'WRONG')).toBeUndefined();
  });

  it("the SSRF guard refuses the stand-in's loopback address unless WEBHOOK_ALLOW_PRIVATE_CIDRS opens it", async () => {
    const destination = await makeDestination(destinationOf(), contextOf({ token: TOKEN, allowPrivateCidrs: '' }));
    const before = github.requests.length;
    expect(await refusal(destination.put([{ key: 'A', value: 'value-a' }]))).toBe('GitHub public key: blocked: 127.0.0.1 (loopback)');
    expect(github.requests).toHaveLength(before);
  });
});

describe("AWS destinations against moto's server", () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(() => moto.stop());
  const local = () => contextOf({ ownAccount: true, awsEndpoint: { url: moto.url, ...MOTO_KEYS } });
  const ssmAs = (credentials = MOTO_KEYS) => new SSMClient({ endpoint: moto.url, region: 'eu-west-1', credentials });
  const smClient = () => new SecretsManagerClient({ endpoint: moto.url, region: 'eu-west-1', credentials: MOTO_KEYS });
  const parameter = (ssm: SSMClient, Name: string) =>
    ssm.send(new GetParameterCommand({ Name, WithDecryption: true })).then(
      (answer) => answer.Parameter,
      (error: Error) => error.name,
    );

  it('Parameter Store: SecureString parameters <pathPrefix><KEY>, overwritten, deleted; a missing one is no error', async () => {
    const config: Destination = { type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/shop/staging/' };
    const destination = await makeDestination(config, local());
    await destination.put([
      { key: 'DB_URL', value: 'postgres://one' },
      { key: 'API_KEY', value: 'k1' },
    ]);
    await destination.put([{ key: 'DB_URL', value: 'postgres://two' }]);
    expect(await parameter(ssmAs(), '/shop/staging/DB_URL')).toMatchObject({ Type: 'SecureString', Value: 'postgres://two', Version: 2 });
    await destination.remove(['API_KEY', 'NEVER_THERE']);
    expect(await parameter(ssmAs(), '/shop/staging/API_KEY')).toBe('ParameterNotFound');
  });

  it("Parameter Store through AssumeRole (moto's STS) with an external id: the values land in the role's account", async () => {
    const roleArn = 'arn:aws:iam::111122223333:role/secrets-sync-ws_test';
    const config: Destination = { type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/other/', roleArn, externalId: 'ext-42' };
    const destination = await makeDestination(
      config,
      contextOf({ awsEndpoint: { url: moto.url, ...MOTO_KEYS }, roleArns: ['arn:aws:iam::*:role/secrets-sync-ws_test'] }),
    );
    await destination.put([{ key: 'TOKEN', value: 'cross-account' }]);
    const sts = new STSClient({ endpoint: moto.url, region: 'eu-west-1', credentials: MOTO_KEYS });
    const assumed = (await sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'reader', ExternalId: 'ext-42' })))
      .Credentials!;
    const asRole = { accessKeyId: assumed.AccessKeyId!, secretAccessKey: assumed.SecretAccessKey!, sessionToken: assumed.SessionToken! };
    expect(await parameter(ssmAs(asRole), '/other/TOKEN')).toMatchObject({ Value: 'cross-account' });
    // moto keeps accounts apart: the stack's own (moto's default) account has no such parameter.
    expect(await parameter(ssmAs(), '/other/TOKEN')).toBe('ParameterNotFound');
  });

  it('a role outside syncRoleArns, or no role without syncOwnAccount, is refused before any write', async () => {
    const config: Destination = {
      type: 'aws-ssm',
      region: 'eu-west-1',
      pathPrefix: '/x/',
      roleArn: 'arn:aws:iam::111122223333:role/admin',
    };
    const endpoint = { url: moto.url, ...MOTO_KEYS };
    const message = await refusal(
      makeDestination(config, contextOf({ awsEndpoint: endpoint, roleArns: ['arn:aws:iam::*:role/secrets-sync-*'] })),
    );
    expect(message).toContain('syncRoleArns');
    const own = await refusal(makeDestination({ ...config, roleArn: undefined } as Destination, contextOf({ awsEndpoint: endpoint })));
    expect(own).toContain('syncOwnAccount');
  });

  it('Secrets Manager secret-per-key: create, overwrite, delete with a recovery window; a missing one is no error', async () => {
    const config: Destination = { type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'shop/staging/' };
    const destination = await makeDestination(config, local());
    await destination.put([{ key: 'DB_URL', value: 'one' }]);
    await destination.put([{ key: 'DB_URL', value: 'two' }]);
    const sm = smClient();
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'shop/staging/DB_URL' }))).SecretString).toBe('two');
    await destination.remove(['DB_URL', 'NEVER_THERE']);
    // Again: a secret already scheduled for deletion is already gone.
    await destination.remove(['DB_URL']);
    const deleted = await sm.send(new DescribeSecretCommand({ SecretId: 'shop/staging/DB_URL' }));
    expect(deleted.DeletedDate).toBeDefined();
  });

  it('Secrets Manager json: one secret of every key, rewritten whole; remove drops keys from it', async () => {
    const config: Destination = { type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'shop/all', mode: 'json' };
    const destination = await makeDestination(config, local());
    expect(destination.wholeEnvironment).toBe(true);
    await destination.put([
      { key: 'B', value: '2' },
      { key: 'A', value: '1' },
    ]);
    const read = async () => (await smClient().send(new GetSecretValueCommand({ SecretId: 'shop/all' }))).SecretString;
    expect(await read()).toBe('{"A":"1","B":"2"}');
    await destination.remove(['A']);
    expect(await read()).toBe('{"B":"2"}');
  });
});

describe("Secrets Manager against the service's own AWS API (another workspace's key pair)", () => {
  let endpoint: DestinationContext['awsEndpoint'];
  let read: (name: string) => Promise<string | undefined>;
  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'shop', environment: 'staging' });
    const key = await awsKey(ws);
    endpoint = { url: inject('stack').baseUrl, accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey };
    const sm = new SecretsManagerClient({ endpoint: endpoint.url, region: 'us-east-1', credentials: key, maxAttempts: 1 });
    read = (SecretId) =>
      sm.send(new GetSecretValueCommand({ SecretId })).then(
        (answer) => answer.SecretString,
        (error: Error) => error.name,
      );
  });

  it("secret-per-key: values become the environment's secrets, overwritten, deleted, and restored when a key returns", async () => {
    const config: Destination = { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: 'shop/staging/' };
    const destination = await makeDestination(config, contextOf({ ownAccount: true, awsEndpoint: endpoint }));
    await destination.put([{ key: 'SYNCED_KEY', value: 'one' }]);
    await destination.put([{ key: 'SYNCED_KEY', value: 'two' }]);
    expect(await read('shop/staging/SYNCED_KEY')).toBe('two');
    await destination.remove(['SYNCED_KEY', 'NEVER_THERE']);
    expect(await read('shop/staging/SYNCED_KEY')).toBe('InvalidRequestException');
    // The key comes back: its secret, waiting out its recovery window, is restored and written.
    await destination.put([{ key: 'SYNCED_KEY', value: 'three' }]);
    expect(await read('shop/staging/SYNCED_KEY')).toBe('three');
  });

  it('json: one secret holding every key', async () => {
    const config: Destination = { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: 'shop/staging/ALL_VALUES', mode: 'json' };
    const destination = await makeDestination(config, contextOf({ ownAccount: true, awsEndpoint: endpoint }));
    await destination.put([
      { key: 'X', value: 'x1' },
      { key: 'Y', value: 'y1' },
    ]);
    expect(JSON.parse((await read('shop/staging/ALL_VALUES')) ?? '')).toEqual({ X: 'x1', Y: 'y1' });
    await destination.remove(['X']);
    expect(JSON.parse((await read('shop/staging/ALL_VALUES')) ?? '')).toEqual({ Y: 'y1' });
  });
});
