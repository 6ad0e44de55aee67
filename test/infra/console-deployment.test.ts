import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceStack } from '../../lib/service-stack.ts';
import { deployedFile, deployment, type Synthesized } from './console-files.ts';
import { consoleDir, idOf, makeOutdir, NO_BUNDLING, only, type Resource, synth } from './synth.ts';

const JWT = {
  issuer: 'https://idp.example.com/tenant/',
  audience: 'secrets-api',
  jwksUri: 'https://idp.example.com/jwks',
  roleClaim: 'groups',
  defaultRole: 'developer' as const,
};

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let plain: Synthesized & { stack: ServiceStack };
let apiEndpoint: string;

beforeAll(async () => {
  outdir = await makeOutdir('infra-console-deployment-');
  // Act
  plain = synth(outdir.dir);
  apiEndpoint = `<${only(plain.template, 'AWS::ApiGatewayV2::Api')[0]}.ApiEndpoint>`;
});

afterAll(async () => {
  await outdir.cleanup();
});

describe('console files', () => {
  it('deploys every file of the build under console/assets/, cached for a year, never pruned', async () => {
    const { resource, dirs } = deployment(plain, 'console/assets/');
    expect(resource.Properties).toMatchObject({ Prune: false, SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' } });
    expect(dirs).toHaveLength(1);
    const built = await readdir(join(consoleDir(), 'assets'));
    expect(built.length).toBeGreaterThan(0);
    expect((await readdir(dirs[0]!)).sort()).toEqual(built.sort());
  });

  it('then deploys index.html and config.json under console/, never cached', async () => {
    const assets = deployment(plain, 'console/assets/');
    const shell = deployment(plain, 'console/');
    expect(shell.resource.Properties).toMatchObject({ Prune: false, SystemMetadata: { 'cache-control': 'no-store' } });
    expect((await Promise.all(shell.dirs.map((dir) => readdir(dir)))).flat().sort()).toEqual(['config.json', 'index.html']);
    // The shell names hashed files: they must be in the bucket before it is.
    expect(shell.resource.DependsOn).toContain(assets.id);
  });

  it('serves the build’s own index.html, whose script and stylesheet are among the deployed assets', async () => {
    const html = await deployedFile(plain, 'index.html');
    const built = await readFile(join(consoleDir(), 'index.html'), 'utf8');
    expect(html.replace(/\s*<meta http-equiv="Content-Security-Policy" content="[^"]*" \/>/, '')).toBe(built);
    const assets = await readdir(deployment(plain, 'console/assets/').dirs[0]!);
    const referenced = [...html.matchAll(/(?:src|href)="\/console\/assets\/([^"]+)"/g)].map((match) => match[1]);
    expect(referenced.length).toBeGreaterThanOrEqual(1);
    for (const file of referenced) expect(assets).toContain(file);
  });
});

describe('console config.json', () => {
  it('names the API’s URL, resolved at deploy, and the default role settings; no identity provider', async () => {
    expect(JSON.parse(await deployedFile(plain, 'config.json'))).toEqual({
      apiUrl: apiEndpoint,
      roleClaim: 'roles',
      defaultRole: 'viewer',
    });
  });

  it('takes the role claim and default role from the JWT settings, and no issuer without consoleClientId', async () => {
    // Act
    const jwtOnly = synth(outdir.dir, { jwt: JWT });
    // Assess
    expect(JSON.parse(await deployedFile(jwtOnly, 'config.json'))).toEqual({
      apiUrl: apiEndpoint,
      roleClaim: 'groups',
      defaultRole: 'developer',
    });
  });

  it('names the issuer and the client id together when consoleClientId is set', async () => {
    // Act
    const signIn = synth(outdir.dir, { jwt: JWT, consoleClientId: 'secrets-console' });
    // Assess
    expect(JSON.parse(await deployedFile(signIn, 'config.json'))).toEqual({
      apiUrl: apiEndpoint,
      issuer: JWT.issuer,
      clientId: 'secrets-console',
      resource: JWT.audience,
      roleClaim: 'groups',
      defaultRole: 'developer',
    });
  });

  it('refuses consoleClientId without JWT settings', () => {
    const app = new App({ outdir: join(outdir.dir, 'refused'), context: NO_BUNDLING });
    expect(() => new ServiceStack(app, 'SecretsService-test', { consoleDir: consoleDir(), consoleClientId: 'secrets-console' })).toThrow(
      /consoleClientId needs the JWT settings/,
    );
  });
});

describe('console deployment function', () => {
  it('runs with its own role: no managed policy, logs only to its own log group (a month), S3 only on its buckets', () => {
    const { template, stack } = plain;
    const site = stack.consoleSite!;
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
    const handler = functions.find((fn) => fn.Properties.Runtime.startsWith('python'));
    const roleId = handler?.Properties.Role['Fn::GetAtt'][0] as string;
    const role = template.findResources('AWS::IAM::Role')[roleId] as Resource;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
    ]);
    const logGroupId = handler?.Properties.LoggingConfig.LogGroup.Ref as string;
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId]).toMatchObject({
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Retain',
    });
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    expect(statements.filter((s) => [s.Action].flat().some((action) => action.startsWith('logs:')))).toEqual([
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
    ]);
    const bucketArn = { 'Fn::GetAtt': [idOf(stack, site.bucket), 'Arn'] };
    for (const statement of statements.filter((s) => [s.Action].flat().some((action) => action.startsWith('s3:')))) {
      const text = JSON.stringify(statement.Resource);
      expect(text.includes(JSON.stringify(bucketArn)) || text.includes('cdk-hnb659fds-assets-')).toBe(true);
    }
    expect(statements.every((s) => [s.Action].flat().every((action) => /^(logs|s3):/.test(action)))).toBe(true);
  });
});
