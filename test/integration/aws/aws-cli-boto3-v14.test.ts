import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, awsClientEnvironment } from './support.ts';

/**
 * The AWS CLI v2 and boto3 (Debian's `awscli`, `python3-boto3`) on what v1.4 adds to the AWS API (decisions.md, "The
 * AWS API for Terraform and External Secrets Operator"): secrets without a value, `SecretBinary` from a file and back,
 * `KmsKeyId alias/aws/secretsmanager`, `get-resource-policy`, and ListSecrets' `description` and `all` filters. STS's
 * `get-caller-identity` through both is aws-sts.test.ts. As aws-cli-boto3.test.ts: skipped without the clients,
 * except in CI (REQUIRE_AWS_CLIENTS).
 */

const AWS_CLI = '/usr/bin/aws';
const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);
const available = existsSync(AWS_CLI) && existsSync(PYTHON);
if (!available && process.env.REQUIRE_AWS_CLIENTS)
  throw new Error(`${AWS_CLI} and boto3 are required: apt-get install awscli python3-boto3`);
if (!available) console.warn('AWS CLI and boto3 v1.4 tests skipped: apt-get install awscli python3-boto3 to run them');

const BYTES = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x0a, 0x7f, 0xc3]);

describe.skipIf(!available)('the AWS CLI v2 and boto3 on secrets without a value, binary values, policies and filters', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'cli14', environment: 'prod' });
    const key = await awsKey(ws);
    env = { ...awsClientEnvironment(key) };
  });

  const aws = async (...args: string[]) => {
    const { stdout } = await run(AWS_CLI, ['--endpoint-url', inject('stack').baseUrl, '--output', 'json', 'secretsmanager', ...args], {
      env,
    });
    return JSON.parse(stdout || '{}');
  };
  const awsFails = (...args: string[]) =>
    run(AWS_CLI, ['--endpoint-url', inject('stack').baseUrl, 'secretsmanager', ...args], { env }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );

  it('create-secret without a value; --secret-binary fileb://; get-secret-value, get-resource-policy, list-secrets --filters', async () => {
    // Each run of the CLI costs a second of Python start-up: one secret of each kind, the rest through boto3 below.
    const created = await aws('create-secret', '--name', 'cli14/prod/LATER', '--kms-key-id', 'alias/aws/secretsmanager');
    expect(created).toEqual({ ARN: expect.stringContaining(':secret:cli14/prod/LATER-'), Name: 'cli14/prod/LATER' });
    expect((await awsFails('get-secret-value', '--secret-id', 'cli14/prod/LATER'))?.stderr).toContain('ResourceNotFoundException');

    const file = join(env.HOME!, 'blob.bin');
    writeFileSync(file, BYTES);
    const description = 'Legacy replica of billing';
    const blob = await aws(
      'create-secret',
      '--name',
      'cli14/prod/BLOB',
      '--description',
      description,
      '--secret-binary',
      `fileb://${file}`,
    );
    const got = await aws('get-secret-value', '--secret-id', 'cli14/prod/BLOB');
    expect([got.SecretString, Buffer.from(got.SecretBinary, 'base64')]).toEqual([undefined, BYTES]);
    expect(await aws('get-resource-policy', '--secret-id', 'cli14/prod/BLOB')).toEqual({ ARN: blob.ARN, Name: 'cli14/prod/BLOB' });
    const names = async (filter: string) =>
      (await aws('list-secrets', '--filters', filter)).SecretList.map((entry: { Name: string }) => entry.Name);
    expect(await names('Key=description,Values=legacy')).toEqual(['cli14/prod/BLOB']);
    expect(await names('Key=all,Values=rep')).toEqual(['cli14/prod/BLOB']);
  });

  it('boto3: create_secret without a value, then put_secret_value; SecretBinary bytes back; list_secrets filters', async () => {
    const script = `
import base64, json, sys, boto3
sm = boto3.client("secretsmanager", endpoint_url=sys.argv[1])
out = {}
created = sm.create_secret(Name="cli14/prod/BOTO_LATER", KmsKeyId="alias/aws/secretsmanager")
out["created"] = sorted(k for k in created if k != "ResponseMetadata")
out["versions"] = "VersionIdsToStages" in sm.describe_secret(SecretId=created["ARN"])
try:
    sm.get_secret_value(SecretId="cli14/prod/BOTO_LATER")
except sm.exceptions.ResourceNotFoundException as error:
    out["empty"] = error.response["Error"]["Code"]
blob = bytes(int(b) for b in sys.argv[2].split(","))
sm.create_secret(Name="cli14/prod/BOTO_BLOB", SecretBinary=blob)
got = sm.get_secret_value(SecretId="cli14/prod/BOTO_BLOB")
out["same"] = got["SecretBinary"] == blob and "SecretString" not in got
out["policy"] = sorted(k for k in sm.get_resource_policy(SecretId="cli14/prod/BOTO_BLOB") if k != "ResponseMetadata")
put = sm.put_secret_value(SecretId=created["ARN"], SecretBinary=blob[:3])
out["put"] = sm.get_secret_value(SecretId=created["ARN"])["SecretBinary"] == blob[:3] and put["VersionStages"] == ["AWSCURRENT"]
sm.update_secret(SecretId="cli14/prod/BOTO_BLOB", Description="Nightly DB2 export")
listed = lambda filters: sorted(s["Name"] for s in sm.list_secrets(Filters=filters)["SecretList"])
out["filters"] = [
    listed([{"Key": "description", "Values": ["NIGHTLY"]}]),
    listed([{"Key": "all", "Values": ["db"]}]),
    listed([{"Key": "name", "Values": ["cli14/prod/BOTO"]}, {"Key": "description", "Values": ["!nightly"]}]),
]
print(json.dumps(out))
`;
    const { stdout } = await run(PYTHON, ['-c', script, inject('stack').baseUrl, [...BYTES].join(',')], { env });
    expect(JSON.parse(stdout)).toEqual({
      created: ['ARN', 'Name'],
      versions: false,
      empty: 'ResourceNotFoundException',
      same: true,
      policy: ['ARN', 'Name'],
      put: true,
      filters: [['cli14/prod/BOTO_BLOB'], ['cli14/prod/BOTO_BLOB'], ['cli14/prod/BOTO_LATER']],
    });
  });
});
