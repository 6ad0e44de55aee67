import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propsFromContext } from '../../bin/app-context.ts';
import { PROJECT_ROOT } from '../../lib/lambda-bundle.ts';
import { ServiceStack } from '../../lib/service-stack.ts';
import { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { consoleDir, NO_BUNDLING } from './synth.ts';

const NODE = join(PROJECT_ROOT, 'node_modules/.bin/node');
const JWT = {
  jwtIssuer: 'https://idp.example.com/',
  jwtAudience: 'secrets-api',
  jwtJwksUri: 'https://idp.example.com/.well-known/jwks.json',
};

/** A rotation function pattern as an operator lists it. */
const ROTATION_PATTERN = 'arn:aws:lambda:eu-west-1:111122223333:function:rotate-*';

/** Context values bin/app.ts refuses, each with the message that names it. */
const MALFORMED: [string, Record<string, unknown>, RegExp][] = [
  ['a malformed stage', { stage: 'Prod!' }, /Context stage must match/],
  ['an unknown removalPolicy', { removalPolicy: 'keep' }, /removalPolicy must be "retain" or "destroy"; got "keep"/],
  ['a zero apiRateLimit', { apiRateLimit: '0', apiBurstLimit: '5' }, /apiRateLimit must be a positive integer; got "0"/],
  ['a rate limit without burst limit', { apiRateLimit: '5' }, /apiRateLimit and apiBurstLimit must be set together/],
  ['an issuer without audience and JWKS URI', { jwtIssuer: JWT.jwtIssuer }, /jwtIssuer, jwtAudience and jwtJwksUri must be set together/],
  ['a workspace claim without JWT settings', { jwtWorkspaceClaim: 'ws' }, /jwtWorkspaceClaim needs jwtIssuer/],
  ['a default role without JWT settings', { jwtDefaultRole: 'admin' }, /jwtDefaultRole needs jwtIssuer/],
  [
    'a default role that is not a role',
    { ...JWT, jwtDefaultRole: 'owner' },
    /jwtDefaultRole must be one of viewer, developer, admin; got "owner"/,
  ],
  ['a plain http JWKS URI', { ...JWT, jwtJwksUri: 'http://idp.example.com/jwks' }, /jwtJwksUri must be an https URL/],
  ['a retention CloudWatch does not offer', { logRetentionDays: '8' }, /logRetentionDays must be one of .*; got 8/],
  ['an alarm e-mail that is not an address', { alarmEmail: 'oncall' }, /alarmEmail must be an e-mail address; got "oncall"/],
  ['a zero audit retention', { auditRetentionDays: '0' }, /auditRetentionDays must be a positive integer; got "0"/],
  [
    'an audit retention S3 refuses',
    { auditRetentionDays: '36501' },
    /auditRetentionDays must be a whole number of days from 1 to 36500; got 36501/,
  ],
  ['a zero reveal rate limit', { revealRateLimit: '0' }, /revealRateLimit must be a positive integer; got "0"/],
  ['the destroy policy for the prod stage', { removalPolicy: 'destroy' }, /removalPolicy "destroy" is refused for the prod stage/],
  [
    'a console client id without JWT settings',
    { consoleClientId: 'secrets-console' },
    /consoleClientId needs jwtIssuer, jwtAudience and jwtJwksUri/,
  ],
  [
    'a console client id with a space',
    { ...JWT, consoleClientId: 'secrets console' },
    /consoleClientId must be an OAuth client id .*; got "secrets console"/,
  ],
  [
    'a console client id with a plain http issuer',
    { ...JWT, jwtIssuer: 'http://idp.example.com/', consoleClientId: 'c' },
    /consoleClientId needs an https jwtIssuer/,
  ],
  [
    'rotationFunctionArns of "*" alone',
    { rotationFunctionArns: '*' },
    /rotationFunctionArns: "\*" would let the runner invoke any function/,
  ],
  [
    'rotationFunctionArns (comma-separated, as -c gives it) with a pattern of another service',
    { rotationFunctionArns: `${ROTATION_PATTERN},arn:aws:s3:::bucket/*` },
    /rotationFunctionArns: "arn:aws:s3:::bucket\/\*" is not a Lambda function ARN pattern/,
  ],
  ['rotationFunctionArns that is not a list', { rotationFunctionArns: { arn: ROTATION_PATTERN } }, /rotationFunctionArns must be a list/],
];

let outdir: string;

/** Runs bin/app.ts as `cdk synth` would, with `context` as the -c values and without bundling. */
async function runApp(context: Record<string, unknown>, name: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_OUTDIR: join(outdir, name) };
  env.CDK_CONTEXT_JSON = JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] });
  delete env.CDK_DEFAULT_ACCOUNT;
  delete env.CDK_DEFAULT_REGION;
  try {
    await promisify(execFile)(NODE, ['bin/app.ts'], { cwd: PROJECT_ROOT, env });
    return { ok: true, stderr: '' };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr) };
  }
}

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'infra-app-test-'));
});

afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

describe('bin/app.ts', () => {
  it('synthesizes SecretsService-<stage> from context values', async () => {
    // Prepare
    const context = {
      stage: 'dev',
      apiRateLimit: '7',
      apiBurstLimit: '9',
      logRetentionDays: '14',
      revealRateLimit: '30',
      alarmEmail: 'oncall@example.com',
      iamServerId: 'secrets.example.com',
      loginRouteRateLimit: '3',
      loginRouteBurstLimit: '5',
      consoleClientId: 'secrets-console',
      auditRetentionDays: '30',
      // As cdk.json holds it: a JSON array.
      rotationFunctionArns: [ROTATION_PATTERN, 'arn:aws:lambda:eu-west-1:111122223333:function:pg-rotation'],
      ...JWT,
    };

    // Act
    const result = await runApp({ ...context, removalPolicy: 'destroy' }, 'valid');

    // Assess
    expect(result).toEqual({ ok: true, stderr: '' });
    const template = JSON.parse(await readFile(join(outdir, 'valid', 'SecretsService-dev.template.json'), 'utf8'));
    const resources = Object.values(template.Resources) as { Type: string; Properties: any; DeletionPolicy?: string }[];
    const stage = resources.find((resource) => resource.Type === 'AWS::ApiGatewayV2::Stage');
    expect(stage?.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
    expect(stage?.Properties.RouteSettings['POST /api/v1/auth/login']).toEqual({ ThrottlingRateLimit: 3, ThrottlingBurstLimit: 5 });
    const table = resources.find((resource) => resource.Type === 'AWS::DynamoDB::Table');
    expect(table?.DeletionPolicy).toBe('Delete');
    const functions = resources.filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const apiFunctions = functions.filter((fn) => fn.Properties.Environment?.Variables.JWT_JWKS_URI === JWT.jwtJwksUri);
    // Every route group's function but the login's and the AWS API's, which authenticate no bearer token.
    expect(apiFunctions).toHaveLength(Object.keys(ROUTE_GROUPS).length - 2);
    // The four that reveal: the secrets group, the AWS API, change requests (a proposed value) and the sync worker.
    expect(functions.filter((fn) => fn.Properties.Environment?.Variables.REVEAL_RATE_LIMIT_PER_MINUTE === '30')).toHaveLength(4);
    expect(functions.filter((fn) => fn.Properties.Environment?.Variables.IAM_SERVER_ID === 'secrets.example.com')).toHaveLength(1);
    const logGroups = resources.filter((r) => r.Type === 'AWS::Logs::LogGroup');
    // One per function (each route group, the three of the webhook pipeline, the rotation runner, the secret purger,
    // the sync worker, the audit digester, the audit stream worker, the console's deployment), plus the API access log.
    expect(logGroups.map((r) => r.Properties.RetentionInDays)).toEqual(
      Array(Object.keys(ROUTE_GROUPS).length + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1).fill(14),
    );
    // The audit bucket locks its objects for auditRetentionDays, and stays with a destroyed stage.
    const auditBucket = resources.find((resource) => resource.Type === 'AWS::S3::Bucket' && resource.Properties.ObjectLockEnabled);
    expect(auditBucket?.Properties.ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 30 } },
    });
    expect(auditBucket?.DeletionPolicy).toBe('Retain');
    // The runner, and the secrets group and the AWS API, which configure rotations.
    const told = functions.filter((fn) => fn.Properties.Environment?.Variables.ROTATION_FUNCTION_ARNS !== undefined);
    expect(told.map((fn) => fn.Properties.Environment.Variables.ROTATION_FUNCTION_ARNS)).toEqual(
      Array(3).fill(`${ROTATION_PATTERN},arn:aws:lambda:eu-west-1:111122223333:function:pg-rotation`),
    );
    const subscription = resources.find((resource) => resource.Type === 'AWS::SNS::Subscription');
    expect(subscription?.Properties).toMatchObject({ Protocol: 'email', Endpoint: 'oncall@example.com' });
    expect(resources.find((resource) => resource.Type === 'AWS::KMS::Alias')?.Properties.AliasName).toBe('alias/dev-secrets');
    // The console, built into the cloud assembly's folder: served by the distribution the API's CORS allows.
    const distributionId = Object.entries(template.Resources as Record<string, { Type: string }>).find(
      ([, r]) => r.Type === 'AWS::CloudFront::Distribution',
    )?.[0];
    const origin = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] };
    expect(resources.find((resource) => resource.Type === 'AWS::ApiGatewayV2::Api')?.Properties.CorsConfiguration.AllowOrigins).toEqual([
      origin,
    ]);
    expect(template.Outputs.ConsoleUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/console/']],
    });
    expect(await readFile(join(outdir, 'valid', 'console-build', 'index.html'), 'utf8')).toContain('/console/assets/');
    const shell = resources.find(
      (resource) => resource.Type === 'Custom::CDKBucketDeployment' && resource.Properties.DestinationBucketKeyPrefix === 'console/',
    );
    const sources = (shell?.Properties.SourceObjectKeys as string[]).map((key) =>
      join(outdir, 'valid', `asset.${key.replace(/\.zip$/, '')}`),
    );
    const config = await Promise.any(sources.map(async (dir) => JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))));
    expect(config).toMatchObject({ issuer: JWT.jwtIssuer, clientId: 'secrets-console' });
  });

  // Each malformed setting, through bin/app.ts's own steps in this process (a child process per case took about 10 s
  // of CPU each): the context read and checked (bin/app-context.ts), the stack built and synthesized.
  it.each(MALFORMED)('fails with a clear message for %s', (_name, context, message) => {
    // Act
    const act = () => {
      const app = new App({ outdir: join(outdir, 'in-process', String(Math.random()).slice(2)), context: { ...context, ...NO_BUNDLING } });
      const props = propsFromContext(app);
      new ServiceStack(app, `SecretsService-${props.stage}`, { ...props, consoleDir: consoleDir() });
      app.synth();
    };

    // Assess
    expect(act).toThrow(message);
  });

  // And as `cdk synth` meets them: a setting the context reader refuses and one the stack refuses stop bin/app.ts
  // with the message on stderr.
  it.concurrent.each(MALFORMED.filter(([name]) => ['a malformed stage', 'a retention CloudWatch does not offer'].includes(name)))(
    'stops bin/app.ts with the message on stderr for %s',
    async (name, context, message) => {
      // Act
      const result = await runApp(context, name.replace(/\W/g, '-'));

      // Assess
      expect(result.ok).toBe(false);
      expect(result.stderr).toMatch(message);
    },
  );
});
