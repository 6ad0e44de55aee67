import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { signedRequest, stsIdentity } from '../../support/login.ts';
import { awsKey, awsClientEnvironment } from './support.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/**
 * STS at the AWS API's endpoint (decisions.md, "STS at the same endpoint"): GetCallerIdentity answers the calling
 * key, for its key pair and for temporary credentials of a login alike, through clients nobody here wrote (the AWS
 * SDK for JavaScript's STS client, the AWS CLI v2, boto3), so Terraform's provider and the Secrets Manager Agent
 * validate their credentials here. The local stack's account is 000000000000.
 */

const ACCOUNT = '000000000000';
const AWS_CLI = '/usr/bin/aws';
const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);
const cliAvailable = existsSync(AWS_CLI) && existsSync(PYTHON);
if (!cliAvailable && process.env.REQUIRE_AWS_CLIENTS)
  throw new Error(`${AWS_CLI} and boto3 are required: apt-get install awscli python3-boto3`);
if (!cliAvailable) console.warn('AWS CLI and boto3 STS tests skipped: apt-get install awscli python3-boto3 to run them');

/** The AWS SDK's STS client, its endpoint the stack's base URL as Terraform's `endpoints { sts = … }` sets it. */
function sts(credentials: Credentials) {
  return new STSClient({ endpoint: inject('stack').baseUrl, region: 'us-east-1', credentials, maxAttempts: 1 });
}

const lastUsedAt = async (ws: Ws, id: string) =>
  (await call('GET', '/api/v1/access-keys', { token: ws.apiKey })).body.data.find((key: { id: string }) => key.id === id).lastUsedAt;

describe('STS GetCallerIdentity at the AWS API endpoint', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    key = await awsKey(ws);
  });

  it('answers Account, UserId (the ak_ id) and Arn for an access key pair, and counts as the key use', async () => {
    expect(await lastUsedAt(ws, key.id)).toBeNull();
    const identity = await sts(key).send(new GetCallerIdentityCommand({}));
    expect(identity).toMatchObject({ Account: ACCOUNT, UserId: key.id, Arn: `arn:aws:iam::${ACCOUNT}:user/secrets-service/${key.id}` });
    expect(identity.$metadata.httpStatusCode).toBe(200);
    expect(identity.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await lastUsedAt(ws, key.id)).toEqual(expect.any(String));
  });

  it('answers the login key for temporary credentials of a login with format aws', async () => {
    const arn = `arn:aws:iam::123456789012:role/sts-${Date.now()}`;
    const workload = await stsIdentity(arn);
    const created = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: { name: 'lambda', auth: { type: 'aws_iam', principalArns: [arn] } },
    });
    expect(created.status).toBe(201);
    const loginKey = created.body.data.id as string;
    const login = await call('POST', '/api/v1/auth/login', {
      body: { accessKeyId: loginKey, method: 'aws_iam', signedRequest: await signedRequest(workload), format: 'aws' },
    });
    expect(login.status).toBe(200);
    const { accessKeyId, secretAccessKey, sessionToken } = login.body.data.awsCredentials;
    const identity = await sts({ accessKeyId, secretAccessKey, sessionToken }).send(new GetCallerIdentityCommand({}));
    expect(identity).toMatchObject({ Account: ACCOUNT, UserId: loginKey, Arn: `arn:aws:iam::${ACCOUNT}:user/secrets-service/${loginKey}` });
  });

  it("refuses a wrong secret key with STS's SignatureDoesNotMatch, and an unknown key id with InvalidClientTokenId", async () => {
    const wrong = sts({ ...key, secretAccessKey: 'x'.repeat(40) }).send(new GetCallerIdentityCommand({}));
    await expect(wrong).rejects.toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    const unknown = sts({ ...key, accessKeyId: 'AKSMAAAAAAAAAAAAAAAA' }).send(new GetCallerIdentityCommand({}));
    await expect(unknown).rejects.toMatchObject({ name: 'InvalidClientTokenId', $metadata: { httpStatusCode: 403 } });
  });

  it('answers any other STS action InvalidAction', async () => {
    const assumed = sts(key).send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${ACCOUNT}:role/admin`, RoleSessionName: 'x' }));
    await expect(assumed).rejects.toMatchObject({
      name: 'InvalidAction',
      message: expect.stringMatching(/AssumeRole/),
      $metadata: { httpStatusCode: 400 },
    });
  });

  describe.skipIf(!cliAvailable)('through the AWS CLI v2 and boto3', () => {
    let env: NodeJS.ProcessEnv;
    beforeAll(() => {
      env = { ...awsClientEnvironment(key) };
    });

    it('aws sts get-caller-identity --endpoint-url answers the key, and a wrong secret fails naming SignatureDoesNotMatch', async () => {
      const base = inject('stack').baseUrl;
      const { stdout } = await run(AWS_CLI, ['sts', 'get-caller-identity', '--endpoint-url', base, '--output', 'json'], { env });
      expect(JSON.parse(stdout)).toEqual({
        UserId: key.id,
        Account: ACCOUNT,
        Arn: `arn:aws:iam::${ACCOUNT}:user/secrets-service/${key.id}`,
      });
      const failed = await run(AWS_CLI, ['sts', 'get-caller-identity', '--endpoint-url', base], {
        env: { ...env, AWS_SECRET_ACCESS_KEY: 'y'.repeat(40) },
      }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failed?.code).toBe(254);
      expect(failed?.stderr).toContain('SignatureDoesNotMatch');
    });

    it("boto3.client('sts', endpoint_url=…).get_caller_identity()", async () => {
      const script = `
import json, sys, boto3
identity = boto3.client("sts", endpoint_url=sys.argv[1]).get_caller_identity()
print(json.dumps({k: identity[k] for k in ("UserId", "Account", "Arn")}))
`;
      const { stdout } = await run(PYTHON, ['-c', script, inject('stack').baseUrl], { env });
      expect(JSON.parse(stdout)).toEqual({
        UserId: key.id,
        Account: ACCOUNT,
        Arn: `arn:aws:iam::${ACCOUNT}:user/secrets-service/${key.id}`,
      });
    });
  });
});
