import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack.ts';
import { ROUTE_GROUPS, type RouteGroup } from '../../shared/routes.ts';
import { TABLE_DEFINITION } from '../../shared/store/table.ts';

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

const GROUPS = Object.keys(ROUTE_GROUPS) as RouteGroup[];
const ALL_ROUTE_KEYS = Object.values(ROUTE_GROUPS).flat();
/** Skips esbuild for stacks whose assets these tests never look at. */
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

let outdir: string;

/** Synthesizes one ServiceStack into its own app under the test's temporary directory. */
function synth(props: ServiceStackProps, context: Record<string, unknown> = {}) {
  const app = new App({ outdir: join(outdir, String(Math.random()).slice(2)), context });
  const stack = new ServiceStack(app, 'SecretsService-test', props);
  return { app, stack, template: Template.fromStack(stack) };
}

function only(template: Template, type: string): [string, Resource] {
  const entries = Object.entries(template.findResources(type));
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
}

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'infra-test-'));
});

afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

describe('ServiceStack with defaults', () => {
  let stack: ServiceStack;
  let template: Template;
  let tableId: string;

  beforeAll(() => {
    // Act: the one full synth of this file, bundling both functions with the local esbuild
    ({ stack, template } = synth({}));
    [tableId] = only(template, 'AWS::DynamoDB::Table');
  }, 60_000);

  it('builds the table from TABLE_DEFINITION', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      AttributeDefinitions: Match.arrayWith([{ AttributeName: 'GSI1PK', AttributeType: 'S' }]),
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('retains the table and key and protects the table from deletion', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
  });

  it('creates a rotating customer-managed key with the stage alias and outputs its ARN', () => {
    const [keyId, key] = only(template, 'AWS::KMS::Key');
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true });
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/prod-secrets',
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(Object.values(template.findOutputs('*')).map((output) => output.Value)).toContainEqual({
      'Fn::GetAtt': [keyId, 'Arn'],
    });
  });

  it('creates one Node.js 24 arm64 function per route group with the table name in its environment', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
    expect(functions).toHaveLength(GROUPS.length);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 10,
      });
      const variables = fn.Properties.Environment.Variables;
      expect(variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, NODE_OPTIONS: '--enable-source-maps' });
      expect(Object.keys(variables).filter((name) => name.startsWith('JWT_'))).toEqual([]);
    }
  });

  it('gives each function its own log group with one month retention, not the legacy logRetention', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    for (const group of GROUPS) {
      const fn = stack.api.functions[group];
      const functionId = stack.getLogicalId(fn.function.node.defaultChild as CfnFunction);
      const logGroupId = stack.getLogicalId(fn.logGroup.node.defaultChild as CfnLogGroup);
      expect(functions[functionId]?.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: logGroupId } });
      expect(logGroups[logGroupId]?.Properties.RetentionInDays).toBe(30);
    }
    expect(template.findResources('Custom::LogRetention')).toEqual({});
  });

  it('routes exactly the route keys of ROUTE_GROUPS, each to its group function, without authorizer', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([...ALL_ROUTE_KEYS].sort());
    expect(routes.map((route) => route.Properties.RouteKey)).not.toContain('$default');
    expect(routes.every((route) => route.Properties.AuthorizationType === 'NONE')).toBe(true);
    expect(template.findResources('AWS::ApiGatewayV2::Authorizer')).toEqual({});

    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    for (const group of GROUPS) {
      const functionId = stack.getLogicalId(stack.api.functions[group].function.node.defaultChild as CfnFunction);
      const targets = routes
        .filter((route) => (ROUTE_GROUPS[group] as readonly string[]).includes(route.Properties.RouteKey))
        .map((route) => integrationOf(route, integrations));
      expect(targets).toHaveLength(ROUTE_GROUPS[group].length);
      for (const integration of targets) {
        expect(integration.Properties).toMatchObject({
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
          IntegrationUri: { 'Fn::GetAtt': [functionId, 'Arn'] },
        });
      }
    }
  });

  it('deploys a $default stage with default throttling and outputs the API URL', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
    const [apiId] = only(template, 'AWS::ApiGatewayV2::Api');
    expect(JSON.stringify(template.findOutputs('*'))).toContain(`{"Ref":"${apiId}"},".execute-api.`);
  });

  it('logs API access without the body, the query string or any header value', () => {
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    const format: string = stage.Properties.AccessLogSettings.Format;
    const fields = Object.values(JSON.parse(format) as Record<string, string>);
    expect(fields).toEqual(
      expect.arrayContaining([
        '$context.requestId',
        '$context.routeKey',
        '$context.status',
        '$context.identity.sourceIp',
        '$context.responseLatency',
      ]),
    );
    expect(format).not.toMatch(/\$context\.authorization|\$input|body|header|querystring|\$request/i);
    const [logGroupId] = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'] as [string, 'Arn'];
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId]?.Properties.RetentionInDays).toBe(30);
  });

  it('grants DynamoDB actions on this table and its indexes only, and nothing on "*"', () => {
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArn = { 'Fn::Join': ['', [tableArn, '/index/*']] };
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
    expect(policies).toHaveLength(GROUPS.length);
    for (const policy of policies) {
      const statements = policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
      const dynamo = statements.filter((s) => [s.Action].flat().some((action) => action.startsWith('dynamodb:')));
      expect(dynamo.flatMap((s) => [s.Action].flat())).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      for (const statement of dynamo) {
        for (const resource of [statement.Resource].flat()) expect([tableArn, indexArn]).toContainEqual(resource);
      }
      expect(statements.flatMap((s) => [s.Resource].flat())).not.toContain('*');
    }
    for (const role of Object.values(template.findResources('AWS::IAM::Role')) as Resource[]) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    // The audit group only reads; every other group writes items and audit entries.
    const writers = policies.filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes('dynamodb:PutItem'));
    expect(writers).toHaveLength(GROUPS.length - 1);
  });

  it('lets only the secrets function use the KMS key, under the secrets encryption context', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
    const kms = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]).filter((s) =>
        [s.Action].flat().some((action) => action.startsWith('kms:')),
      ),
    );
    expect(kms).toHaveLength(1);
    expect(kms[0]).toMatchObject({
      Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
      Condition: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['workspaceId', 'secretId', 'version'] },
        Null: { 'kms:EncryptionContext:workspaceId': 'false', 'kms:EncryptionContext:secretId': 'false', 'kms:EncryptionContext:version': 'false' },
      },
    });
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
    expect(functions.filter((fn) => fn.Properties.Environment.Variables.KMS_KEY_ID)).toHaveLength(1);
  });
});

describe('ServiceStack with settings', () => {
  it('passes JWT settings, throttling, retention and the destroy policy through', () => {
    // Prepare
    const props: ServiceStackProps = {
      stage: 'dev',
      jwt: {
        issuer: 'https://idp.example.com/',
        audience: 'secrets-api',
        jwksUri: 'https://idp.example.com/.well-known/jwks.json',
        workspaceClaim: 'custom:workspace',
      },
      apiThrottle: { rateLimit: 5, burstLimit: 10 },
      logRetentionDays: 7,
      removalPolicy: 'destroy',
    };

    // Act
    const { template } = synth(props, NO_BUNDLING);

    // Assess
    template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          JWT_ISSUER: 'https://idp.example.com/',
          JWT_AUDIENCE: 'secrets-api',
          JWT_JWKS_URI: 'https://idp.example.com/.well-known/jwks.json',
          JWT_WORKSPACE_CLAIM: 'custom:workspace',
        }),
      },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/dev-secrets' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete' });
    template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('rejects a retention that CloudWatch Logs does not offer', () => {
    expect(() => synth({ logRetentionDays: 8 }, NO_BUNDLING)).toThrow(/logRetentionDays must be one of .*got 8/);
  });

  it('passes the AwsSolutions checks, with only acknowledged findings', () => {
    // Prepare
    const app = new App({ outdir: join(outdir, 'nag'), context: NO_BUNDLING });
    new ServiceStack(app, 'SecretsService-nag', {});
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Act + Assess: a finding that is not acknowledged fails the synth and prints the report
    expect(() => app.synth()).not.toThrow();
  });
});

function integrationOf(route: Resource, integrations: Record<string, Record<string, any>>): Resource {
  const [, parts] = route.Properties.Target['Fn::Join'] as [string, [string, { Ref: string }]];
  const integration = integrations[parts[1].Ref];
  expect(integration).toBeDefined();
  return integration as Resource;
}
