import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { fromSecretsService } from '@secrets-service/sdk/aws';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { awsSessionCredentials } from '../../../shared/access/aws-session.ts';
import { hashToken } from '../../../shared/access/tokens.ts';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../../../shared/platform/crypto/local-keyring.ts';
import { loadServiceMacs } from '../../../shared/platform/crypto/mac-key.ts';
import { makeMacKeyStore } from '../../../shared/platform/store/mac-key-store.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { iamLogin, signedRequest, stsIdentity } from '../../support/login.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { runSecrets } from '../../support/workload.ts';
import { client } from './support.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/**
 * Temporary credentials (decisions.md, "Credentials"): a login with `"format": "aws"` answers the login's token as a
 * session token with a key pair derived from it; the AWS API takes them as AWS's temporary credentials, and the
 * token's revocation, expiry and the key's rules reach them.
 */
describe('temporary AWS credentials from a login with format aws', () => {
  let ws: Ws;
  let keyId: string;
  let identity: Awaited<ReturnType<typeof stsIdentity>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'temp-app', environment: 'prod' })).environment.id;
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'API_KEY', value: 'temp-value' } });
    const arn = `arn:aws:iam::123456789012:role/temp-${Date.now()}`;
    identity = await stsIdentity(arn);
    const created = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: {
        name: 'lambda',
        auth: { type: 'aws_iam', principalArns: [arn] },
        permissions: [{ projects: ['temp-app'], actions: ['read', 'reveal'] }],
      },
    });
    expect(created.status).toBe(201);
    keyId = created.body.data.id;
  });

  const login = async () => {
    const answer = await call('POST', '/api/v1/auth/login', {
      body: { accessKeyId: keyId, method: 'aws_iam', signedRequest: await signedRequest(identity), format: 'aws' },
    });
    expect(answer.status).toBe(200);
    return answer.body.data as {
      token: null;
      expiresAt: string;
      awsCredentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: string };
    };
  };

  it('answers AWS credentials instead of the token, which sign AWS API calls under the key', async () => {
    const answer = await login();
    expect(answer.token).toBeNull();
    expect(answer.awsCredentials.accessKeyId).toMatch(/^ASSM[A-Z2-7]{16}$/);
    expect(answer.awsCredentials.secretAccessKey).toHaveLength(40);
    expect(answer.awsCredentials.expiration).toBe(answer.expiresAt);
    const got = await client(answer.awsCredentials).send(new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' }));
    expect(got.SecretString).toBe('temp-value');
    // Without format, the login answers its token as before.
    const plain = await iamLogin(keyId, await signedRequest(identity));
    expect(plain.body.data.token).toMatch(/^st_/);
    expect(plain.body.data.awsCredentials).toBeUndefined();
  });

  it('refuses a tampered session token, another key id, a wrong secret and the pair without its token', async () => {
    const { awsCredentials: creds } = await login();
    const get = new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' });
    const tampered = `${creds.sessionToken.slice(0, 10)}${creds.sessionToken[10] === 'A' ? 'B' : 'A'}${creds.sessionToken.slice(11)}`;
    await expect(client({ ...creds, sessionToken: tampered }).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    const other = await login();
    await expect(client({ ...creds, accessKeyId: other.awsCredentials.accessKeyId }).send(get)).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    await expect(client({ ...creds, secretAccessKey: 'x'.repeat(40) }).send(get)).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
    const { sessionToken: _dropped, ...pairAlone } = creds;
    await expect(client(pairAlone).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  it('the session token is no bearer token, and a login token of the default format is no session token (v1.4)', async () => {
    const { awsCredentials: creds } = await login();
    const get = new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' });
    // Whoever saw one signed request's headers holds the session token, not the secret key: REST refuses it.
    const asBearer = await call('GET', '/api/v1/projects', { token: creds.sessionToken });
    expect([asBearer.status, asBearer.body.error.code]).toEqual([401, 'AUTH_REQUIRED']);
    expect(asBearer.body.error.message).toContain('X-Amz-Security-Token');
    expect((await client(creds).send(get)).SecretString).toBe('temp-value');
    // A default login's token still works as a bearer token, and not as a session token: even signed with the pair
    // derived from it (only the service can derive it; this test unseals the local stack's MAC key to play the worst
    // case), it is AWS's answer for an invalid security token.
    const plain = (await iamLogin(keyId, await signedRequest(identity))).body.data.token as string;
    expect((await call('GET', '/api/v1/projects', { token: plain })).status).toBe(200);
    const { doc, tableName } = localStore();
    const keyring = makeLocalKeyring({ keyFile: join(inject('localDir'), LOCAL_MASTER_KEY_FILE) });
    const macs = await loadServiceMacs(makeMacKeyStore({ doc, tableName }), async () => keyring);
    const derived = { ...awsSessionCredentials(macs, plain), sessionToken: plain };
    await expect(client(derived).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    await expect(client({ ...creds, sessionToken: plain }).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  it('follows the token: expired is ExpiredTokenException, a revoked key UnrecognizedClientException', async () => {
    const { awsCredentials: creds } = await login();
    const get = new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' });
    // The token item's expiry moved into the past, as time would move it.
    const { doc, tableName } = localStore();
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.token(hashToken(creds.sessionToken)),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    await expect(client(creds).send(get)).rejects.toMatchObject({ name: 'ExpiredTokenException' });
    const fresh = (await login()).awsCredentials;
    expect((await client(fresh).send(get)).SecretString).toBe('temp-value');
    expect((await call('POST', `/api/v1/access-keys/${keyId}/revoke`, { token: ws.apiKey })).status).toBe(200);
    await expect(client(fresh).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  it('@secrets-service/sdk/aws fromSecretsService: an AWS SDK client that logs in by itself, once for many calls', async () => {
    const created = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: {
        name: 'sdk',
        auth: { type: 'aws_iam', principalArns: [identity.arn] },
        permissions: [{ projects: ['temp-app'], actions: ['reveal'] }],
      },
    });
    // The AWS IAM login signs with the AWS SDK's default credentials: the role's, from the environment.
    vi.stubEnv('AWS_ACCESS_KEY_ID', identity.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', identity.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    try {
      const { baseUrl, awsStsEndpoint } = inject('stack');
      const credentials = fromSecretsService({
        baseUrl,
        accessKeyId: created.body.data.id,
        method: 'aws_iam',
        stsEndpoint: awsStsEndpoint,
      });
      const sm = new SecretsManagerClient({ endpoint: baseUrl, region: 'us-east-1', credentials, maxAttempts: 1 });
      for (let i = 0; i < 3; i++)
        expect((await sm.send(new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' }))).SecretString).toBe('temp-value');
      const logins = await localStore().store.listAudit(
        ws.workspaceId,
        { limit: 10 },
        { target: created.body.data.id, action: 'access_key.login' },
      );
      expect(logins.items).toHaveLength(1);
      expect((await credentials()).expiration).toBeInstanceOf(Date);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("secrets login --format aws prints AWS's credential_process JSON, which signs calls", async () => {
    const created = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: {
        name: 'cli',
        auth: { type: 'aws_iam', principalArns: [identity.arn] },
        permissions: [{ projects: ['temp-app'], actions: ['reveal'] }],
      },
    });
    const { baseUrl, awsStsEndpoint } = inject('stack');
    const printed = await runSecrets(['login', '--format', 'aws'], {
      SECRETS_API_URL: baseUrl,
      SECRETS_AWS_STS_ENDPOINT: awsStsEndpoint,
      SECRETS_ACCESS_KEY_ID: created.body.data.id,
      SECRETS_AUTH: 'aws-iam',
      AWS_ACCESS_KEY_ID: identity.accessKeyId,
      AWS_SECRET_ACCESS_KEY: identity.secretAccessKey,
    });
    expect(printed.code).toBe(0);
    const process = JSON.parse(printed.stdout);
    expect(Object.keys(process).sort()).toEqual(['AccessKeyId', 'Expiration', 'SecretAccessKey', 'SessionToken', 'Version']);
    expect(process.Version).toBe(1);
    const sm = client({ accessKeyId: process.AccessKeyId, secretAccessKey: process.SecretAccessKey, sessionToken: process.SessionToken });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'temp-app/prod/API_KEY' }))).SecretString).toBe('temp-value');
  });
});
