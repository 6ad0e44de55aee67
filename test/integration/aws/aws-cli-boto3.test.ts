import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { runSecrets } from '../../support/workload.ts';
import { awsKey, awsClientEnvironment } from './support.ts';

/**
 * Clients nobody here wrote (issue 36): the AWS CLI v2 and boto3 from Debian's packages (`awscli`, `python3-boto3`),
 * pointed at the local stack by their endpoint settings alone. `.ci/run` installs them when missing and sets
 * REQUIRE_AWS_CLIENTS, so in CI their absence fails; elsewhere these tests are skipped, loudly, without them.
 */

const AWS_CLI = '/usr/bin/aws';
const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);
const available = existsSync(AWS_CLI) && existsSync(PYTHON);
if (!available && process.env.REQUIRE_AWS_CLIENTS)
  throw new Error(`${AWS_CLI} and boto3 are required: apt-get install awscli python3-boto3`);
if (!available) console.warn('AWS CLI and boto3 tests skipped: apt-get install awscli python3-boto3 to run them');

describe.skipIf(!available)('the AWS CLI v2 and boto3 against the local stack', () => {
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  beforeAll(async () => {
    const ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'cli-app', environment: 'prod' })).environment.id;
    for (const key of ['A_KEY', 'B_KEY', 'C_KEY']) {
      await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value: `value of ${key}` } });
    }
    const key = await awsKey(ws);
    baseUrl = inject('stack').baseUrl;
    env = { ...awsClientEnvironment(key) };
  });

  const aws = async (...args: string[]) => {
    const { stdout } = await run(AWS_CLI, ['--endpoint-url', baseUrl, '--output', 'json', 'secretsmanager', ...args], { env });
    return JSON.parse(stdout || '{}');
  };

  it('aws secretsmanager get-secret-value, describe-secret, put-secret-value and list-secrets (paginated)', async () => {
    const got = await aws('get-secret-value', '--secret-id', 'cli-app/prod/A_KEY');
    expect(got).toMatchObject({ Name: 'cli-app/prod/A_KEY', SecretString: 'value of A_KEY', VersionStages: ['AWSCURRENT'] });
    const put = await aws('put-secret-value', '--secret-id', got.ARN, '--secret-string', 'rotated by the CLI');
    expect(put).toMatchObject({ ARN: got.ARN, VersionStages: ['AWSCURRENT'] });
    expect(put.VersionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await aws('get-secret-value', '--secret-id', got.ARN)).SecretString).toBe('rotated by the CLI');
    const described = await aws('describe-secret', '--secret-id', 'cli-app/prod/A_KEY');
    expect(described.VersionIdsToStages).toMatchObject({ [put.VersionId]: ['AWSCURRENT'], [got.VersionId]: ['AWSPREVIOUS'] });
    // The CLI follows NextToken by itself: a page size of 1 makes three requests for the three secrets.
    const listed = await aws('list-secrets', '--page-size', '1');
    expect(listed.SecretList.map((secret: { Name: string }) => secret.Name).sort()).toEqual([
      'cli-app/prod/A_KEY',
      'cli-app/prod/B_KEY',
      'cli-app/prod/C_KEY',
    ]);
  });

  it("answers the CLI an AWS error code it prints, with the CLI's failure status", async () => {
    const failed = await run(
      AWS_CLI,
      ['--endpoint-url', baseUrl, 'secretsmanager', 'get-secret-value', '--secret-id', 'cli-app/prod/NOPE'],
      {
        env,
      },
    ).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(254);
    expect(failed?.stderr).toContain('ResourceNotFoundException');
  });

  it('boto3: get_secret_value, the list_secrets paginator, put_secret_value, describe_secret and a modelled error', async () => {
    const script = `
import json, sys, boto3
sm = boto3.client("secretsmanager", endpoint_url=sys.argv[1])
out = {}
out["get"] = sm.get_secret_value(SecretId="cli-app/prod/B_KEY")["SecretString"]
pages = sm.get_paginator("list_secrets").paginate(PaginationConfig={"PageSize": 1})
out["pages"] = [[s["Name"] for s in page["SecretList"]] for page in pages]
put = sm.put_secret_value(SecretId="cli-app/prod/B_KEY", SecretString="from boto3", ClientRequestToken="b0b0b0b0-0000-4000-8000-000000000001")
again = sm.put_secret_value(SecretId="cli-app/prod/B_KEY", SecretString="from boto3", ClientRequestToken="b0b0b0b0-0000-4000-8000-000000000001")
out["put"] = [put["VersionId"], again["VersionId"]]
out["describe"] = sm.describe_secret(SecretId="cli-app/prod/B_KEY")["VersionIdsToStages"]
try:
    sm.get_secret_value(SecretId="cli-app/prod/NOPE")
except sm.exceptions.ResourceNotFoundException as error:
    out["error"] = error.response["Error"]["Code"]
print(json.dumps(out))
`;
    const { stdout } = await run(PYTHON, ['-c', script, baseUrl], { env });
    const out = JSON.parse(stdout);
    expect(out.get).toBe('value of B_KEY');
    expect(out.pages).toHaveLength(3);
    expect(out.pages.flat().sort()).toEqual(['cli-app/prod/A_KEY', 'cli-app/prod/B_KEY', 'cli-app/prod/C_KEY']);
    expect(out.put).toEqual(['b0b0b0b0-0000-4000-8000-000000000001', 'b0b0b0b0-0000-4000-8000-000000000001']);
    expect(out.describe).toMatchObject({ 'b0b0b0b0-0000-4000-8000-000000000001': ['AWSCURRENT'] });
    expect(out.error).toBe('ResourceNotFoundException');
  });

  it("the README's five commands: npm start, source .local/env, projects create --env, set, aws get-secret-value", async () => {
    // `npm start` wrote LOCAL_DIR/env: what `source .local/env` sets, read here as the shell would.
    const file = readFileSync(join(inject('localDir'), 'env'), 'utf8');
    const sourced = Object.fromEntries([...file.matchAll(/^export ([A-Z_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
    expect(Object.keys(sourced)).toEqual(
      expect.arrayContaining(['SECRETS_API_URL', 'SECRETS_TOKEN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_DEFAULT_REGION']),
    );
    const shell = {
      ...sourced,
      HOME: env.HOME!,
      AWS_CONFIG_FILE: env.AWS_CONFIG_FILE!,
      AWS_SHARED_CREDENTIALS_FILE: env.AWS_SHARED_CREDENTIALS_FILE!,
    };
    const project = `readme-${Date.now()}`;
    const created = await runSecrets(['projects', 'create', project, '--env', 'Production'], shell);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`${project}/production`);
    const set = await runSecrets(['set', 'DB_URL=postgres://db.internal/payments', '--project', project, '--env', 'production'], shell);
    expect(set.code).toBe(0);
    const { stdout } = await run(
      AWS_CLI,
      ['--endpoint-url', sourced.SECRETS_API_URL!, 'secretsmanager', 'get-secret-value', '--secret-id', `${project}/production/DB_URL`],
      { env: { PATH: process.env.PATH, AWS_EC2_METADATA_DISABLED: 'true', AWS_PAGER: '', ...shell } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ Name: `${project}/production/DB_URL`, SecretString: 'postgres://db.internal/payments' });
  });
});
