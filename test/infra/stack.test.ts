import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { TABLE_DEFINITION } from '../../shared/platform/store/table.ts';
import {
  FUNCTION_NAMES,
  type FunctionName,
  functionsOf,
  GROUPS,
  idOf,
  makeOutdir,
  LOCAL_ONLY_SETTINGS,
  only,
  secretsKeyOf,
  PIPELINE,
  type Resource,
  synth,
} from './synth.ts';

const ALL_ROUTE_KEYS = Object.values(ROUTE_GROUPS).flat();

let outdir: Awaited<ReturnType<typeof makeOutdir>>;

beforeAll(async () => {
  outdir = await makeOutdir('infra-stack-');
});

afterAll(async () => {
  await outdir.cleanup();
});

describe('ServiceStack with defaults', () => {
  let stack: ServiceStack;
  let template: Template;
  let tableId: string;

  beforeAll(() => {
    // Act
    ({ stack, template } = synth(outdir.dir));
    [tableId] = only(template, 'AWS::DynamoDB::Table');
  });

  it('builds the one table from TABLE_DEFINITION: on-demand, NEW_AND_OLD_IMAGES stream, TTL, PITR, the four indexes', () => {
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
        // The delivery log (GSI3) copies only keys and eventType, so an attempt's updates do not rewrite it; an
        // environment's secrets (GSI4) only keys and the key, so a new version does not either.
        Projection: {
          GSI3: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['eventType'] },
          GSI4: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['key', 'keyLower'] },
        }[gsi.indexName as string] ?? { ProjectionType: 'ALL' },
      })),
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'GSI1PK', AttributeType: 'S' },
        { AttributeName: 'GSI2PK', AttributeType: 'S' },
        { AttributeName: 'GSI3PK', AttributeType: 'S' },
        { AttributeName: 'GSI4PK', AttributeType: 'S' },
      ]),
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(template.findResources('AWS::DynamoDB::Table')[tableId]?.Properties.TableName).toBeUndefined();
  });

  it('retains the table (with deletion protection), the key and the logs in production', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' });
  });

  it('creates a rotating symmetric customer-managed key with the stage alias and outputs its ARN', () => {
    const [keyId, key] = secretsKeyOf(template, stack);
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, PendingWindowInDays: 30 });
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/prod-secrets',
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(Object.values(template.findOutputs('*')).map((output) => output.Value)).toContainEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('has a key policy whose account statement administers the key and cannot use it (issue 11 replaces kms:* here)', () => {
    const [, key] = secretsKeyOf(template, stack);
    const root = (key.Properties.KeyPolicy.Statement as { Sid?: string; Principal?: unknown; Resource?: unknown }[]).filter(
      (s) => s.Sid === 'KeyAdministrationByThisAccount',
    );
    expect(root).toHaveLength(1);
    expect(root[0]!.Principal).toEqual({
      AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] },
    });
    expect(root[0]!.Resource).toBe('*');
  });

  it('runs every function on Node.js 24 arm64 with source maps, in its own log group with a month of retention', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    // Besides them, only the console's deployment function (aws-cdk-lib's BucketDeployment, console-deployment.test.ts).
    const others = Object.keys(functions).filter((id) => !Object.values(functionsOf(stack)).some((fn) => idOf(stack, fn.function) === id));
    expect(others.map((id) => functions[id]?.Properties.Role)).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^ConsoleSiteDeploymentRole/), 'Arn'] },
    ]);
    for (const fn of Object.values(functionsOf(stack))) {
      const properties = functions[idOf(stack, fn.function)]?.Properties;
      expect(properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: idOf(stack, fn.logGroup) } },
      });
      // The API description's function (issue 12) reads no table.
      expect(properties?.Environment.Variables).toMatchObject({
        ...(fn === stack.api.functions.openapi ? {} : { TABLE_NAME: { Ref: tableId } }),
        SERVICE_NAME: 'secrets-service',
        POWERTOOLS_SERVICE_NAME: 'secrets-service',
      });
      // No --enable-source-maps: the logger maps an error's frames when it writes them (issue 52).
      expect(properties?.Environment.Variables).not.toHaveProperty('NODE_OPTIONS');
      expect(logGroups[idOf(stack, fn.logGroup)]?.Properties.RetentionInDays).toBe(30);
    }
    expect(template.findResources('Custom::LogRetention')).toEqual({});
  });

  it('sizes the API functions at 512 MB and 10 s, the worker at 30 s, fan-out, sweeper and purger at a minute, the sync worker at 2 minutes, the rotation runner at 6 minutes', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const sizing = (name: FunctionName) => {
      const { MemorySize, Timeout } = functions[idOf(stack, functionsOf(stack)[name].function)]!.Properties;
      return { MemorySize, Timeout };
    };
    for (const group of GROUPS) expect(sizing(group)).toEqual({ MemorySize: 512, Timeout: 10 });
    expect(sizing('delivery-worker')).toEqual({ MemorySize: 512, Timeout: 30 });
    expect(sizing('webhook-fanout')).toEqual({ MemorySize: 512, Timeout: 60 });
    expect(sizing('delivery-sweeper')).toEqual({ MemorySize: 256, Timeout: 60 });
    expect(sizing('secret-purger')).toEqual({ MemorySize: 256, Timeout: 60 });
    // A step invokes a rotation function for at most 5 minutes (AWS's step timeout).
    expect(sizing('rotation')).toEqual({ MemorySize: 512, Timeout: 360 });
    // A push reveals, audits and sends at most a page of values to one platform (Parameter Store's rate is low).
    expect(sizing('sync-worker')).toEqual({ MemorySize: 512, Timeout: 120 });
    // A run walks every workspace, and makes any digest an earlier run missed.
    expect(sizing('audit-digester')).toEqual({ MemorySize: 512, Timeout: 300 });
    // A batch sends each stream's entries with 10 s a receiver.
    expect(sizing('audit-stream-worker')).toEqual({ MemorySize: 512, Timeout: 60 });
  });

  it('gives each function exactly the settings its code reads, and none of the local-only ones', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const variables = (name: FunctionName) =>
      Object.keys(functions[idOf(stack, functionsOf(stack)[name].function)]!.Properties.Environment.Variables).sort();
    const common = ['POWERTOOLS_SERVICE_NAME', 'SERVICE_NAME', 'TABLE_NAME'];
    const queue = ['DELIVERY_QUEUE_URL'];
    const scheduler = ['DELIVERY_QUEUE_ARN', 'SCHEDULER_GROUP', 'SCHEDULER_ROLE_ARN'];
    // Every API function unseals the service MAC keys (KMS_KEY_ID); the API description reads nothing.
    const key = ['KMS_KEY_ID'];
    // The functions that queue rotation steps: the two that start rotations, and the runner.
    const rotations = ['ROTATION_QUEUE_URL'];
    const rotationSchedules = ['ROTATION_QUEUE_ARN', 'ROTATION_SCHEDULE_GROUP', 'ROTATION_SCHEDULER_ROLE_ARN'];
    // The functions that queue sync pushes: the syncs group (create, run, resume), the fan-out and the sync worker.
    const syncs = ['SYNC_QUEUE_URL'];
    // The functions that queue audit stream messages: the fan-out (new entries) and the worker (its retries).
    const streams = ['AUDIT_STREAM_QUEUE_URL'];
    const expected: Record<FunctionName, string[]> = {
      projects: [...common, ...key],
      environments: [...common, ...key],
      secrets: [...common, ...key, ...rotations, 'REVEAL_RATE_LIMIT_PER_MINUTE'],
      // The digest key's ARN, for GET /api/v1/audit/public-key.
      audit: [...common, ...key, 'AUDIT_SIGNING_KEY_ID'],
      'change-requests': [...common, ...key, 'REVEAL_RATE_LIMIT_PER_MINUTE'],
      // SYNC_QUEUE_URL comes with the sync queue's construct (the pipeline's).
      syncs: [...common, ...key, ...syncs],
      'audit-streams': [...common, ...key],
      'access-keys': [...common, ...key],
      // The login: the regional STS endpoint and the server id; it authenticates no bearer token (no JWT settings).
      auth: [...common, ...key, 'AWS_STS_ENDPOINT', 'IAM_SERVER_ID'],
      webhooks: [...common, ...key],
      'webhook-deliveries': [...common, ...queue, ...key],
      openapi: common.filter((name) => name !== 'TABLE_NAME'),
      // The AWS API: SigV4 only (no JWT settings), the reveal limit, the account of its ARNs, and the key's alias (a
      // KmsKeyId it accepts).
      aws: [...common, ...key, ...rotations, 'REVEAL_RATE_LIMIT_PER_MINUTE', 'AWS_ACCOUNT_ID', 'KMS_KEY_ALIAS'],
      'webhook-fanout': [...common, ...queue, ...syncs, ...streams],
      'delivery-worker': [...common, ...queue, ...scheduler, 'KMS_KEY_ID'],
      'delivery-sweeper': [...common, ...queue],
      // The runner: the secret-value key, its queue, and the account of the secret ARNs its rotation events name; no
      // ROTATION_FUNCTION_ARNS while rotationFunctionArns is empty.
      // The runner alone keeps the rotation schedules (the API functions ask it through the queue).
      rotation: [...common, ...key, ...rotations, ...rotationSchedules, 'AWS_ACCOUNT_ID'],
      // The purger reads the table alone: no key (it opens no value), no queue.
      'secret-purger': common,
      // The digester: the signing key and the bucket; no secrets key (it opens nothing), and no
      // AUDIT_DIGEST_PERIOD_SECONDS: the hour is its default, a shorter period is for the local stack's tests.
      'audit-digester': [...common, 'AUDIT_BUCKET', 'AUDIT_SIGNING_KEY_ID'],
      // The sync worker: the key (it opens values and GitHub tokens), its queue (its retries), whether it may write
      // into this account (SYNC_OWN_ACCOUNT, always set), the reveal limit its pushes count against; no
      // SYNC_ROLE_ARNS while syncRoleArns is empty.
      'sync-worker': [...common, ...key, ...syncs, 'SYNC_OWN_ACCOUNT', 'REVEAL_RATE_LIMIT_PER_MINUTE'],
      // The audit stream worker: the key (it opens stream credentials) and its queue (its retries).
      'audit-stream-worker': [...common, ...key, ...streams],
    };
    for (const name of FUNCTION_NAMES)
      expect({ name, variables: variables(name) }).toEqual({ name, variables: [...expected[name]].sort() });
    for (const fn of Object.values(functions) as Resource[]) {
      for (const setting of LOCAL_ONLY_SETTINGS) expect(fn.Properties.Environment.Variables).not.toHaveProperty(setting);
    }
  });

  it('points the key, queue and scheduler settings at this stack’s resources, and the reveal limit at 120', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const env = (name: FunctionName) => functions[idOf(stack, functionsOf(stack)[name].function)]!.Properties.Environment.Variables;
    const [keyId] = secretsKeyOf(template, stack);
    const queueId = idOf(stack, stack.delivery.queue);
    expect(env('secrets')).toMatchObject({ KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] }, REVEAL_RATE_LIMIT_PER_MINUTE: '120' });
    for (const name of ['syncs', 'webhook-fanout', 'sync-worker'] as const)
      expect(env(name)).toMatchObject({ SYNC_QUEUE_URL: { Ref: idOf(stack, stack.syncs.queue) } });
    for (const name of ['webhook-fanout', 'audit-stream-worker'] as const)
      expect(env(name)).toMatchObject({ AUDIT_STREAM_QUEUE_URL: { Ref: idOf(stack, stack.auditStreams.queue) } });
    expect(env('sync-worker')).toMatchObject({
      KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] },
      REVEAL_RATE_LIMIT_PER_MINUTE: '120',
      SYNC_OWN_ACCOUNT: 'false',
    });
    for (const name of ['webhook-deliveries', ...PIPELINE] as const)
      expect(env(name)).toMatchObject({ DELIVERY_QUEUE_URL: { Ref: queueId } });
    for (const name of ['secrets', 'aws', 'rotation'] as const)
      expect(env(name)).toMatchObject({ ROTATION_QUEUE_URL: { Ref: idOf(stack, stack.rotation.queue) } });
    expect(env('aws')).toMatchObject({ KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] }, KMS_KEY_ALIAS: 'alias/prod-secrets' });
    expect(env('rotation')).toMatchObject({
      KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] },
      AWS_ACCOUNT_ID: { Ref: 'AWS::AccountId' },
      ROTATION_QUEUE_ARN: { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] },
      ROTATION_SCHEDULE_GROUP: 'prod-rotations',
      ROTATION_SCHEDULER_ROLE_ARN: { 'Fn::GetAtt': [idOf(stack, stack.rotation.schedulerRole), 'Arn'] },
    });
    expect(env('delivery-worker')).toMatchObject({
      DELIVERY_QUEUE_ARN: { 'Fn::GetAtt': [queueId, 'Arn'] },
      SCHEDULER_GROUP: 'prod-webhook-retries',
      SCHEDULER_ROLE_ARN: { 'Fn::GetAtt': [idOf(stack, stack.delivery.schedulerRole), 'Arn'] },
    });
  });

  it('routes exactly the route keys of ROUTE_GROUPS, each to its group function, without authorizer or $default route', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([...ALL_ROUTE_KEYS].sort());
    // No $default route: API Gateway itself answers an unknown route with its generic 404 before any function runs.
    expect(routes.map((route) => route.Properties.RouteKey)).not.toContain('$default');
    expect(routes.every((route) => route.Properties.AuthorizationType === 'NONE')).toBe(true);
    expect(template.findResources('AWS::ApiGatewayV2::Authorizer')).toEqual({});

    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    for (const group of GROUPS) {
      const functionId = idOf(stack, stack.api.functions[group].function);
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

  it('deploys a $default stage with default throttling and outputs the API URL and the table name', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
    const [apiId] = only(template, 'AWS::ApiGatewayV2::Api');
    const outputs = template.findOutputs('*');
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain(`{"Ref":"${apiId}"},".execute-api.`);
    expect(outputs.TableName?.Value).toEqual({ Ref: tableId });
  });

  it('outputs, under stable names, what the operator guide refers to', () => {
    const outputs = template.findOutputs('*');
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ApiUrl',
        'AuditBucketName',
        'AuditSigningKeyArn',
        'AuditStreamDeadLetterQueueArn',
        'AuditStreamDeadLetterQueueUrl',
        'AuditStreamQueueUrl',
        'AuditStreamWorkerFunctionName',
        'ConsoleUrl',
        'DashboardUrl',
        'DeliveryDeadLetterQueueArn',
        'DeliveryDeadLetterQueueUrl',
        'DeliveryQueueUrl',
        'FanoutFunctionName',
        'PurgerFunctionName',
        'RetryScheduleGroupName',
        'RotationDeadLetterQueueArn',
        'RotationDeadLetterQueueUrl',
        'RotationFunctionName',
        'RotationQueueUrl',
        'RotationScheduleGroupName',
        'SecretsKeyArn',
        'StreamFailureQueueUrl',
        'SweeperFunctionName',
        'SyncDeadLetterQueueArn',
        'SyncDeadLetterQueueUrl',
        'SyncQueueUrl',
        'SyncWorkerFunctionName',
        'TableName',
        'WorkerFunctionName',
      ].sort(),
    );
    expect(outputs.DeliveryDeadLetterQueueArn?.Value).toEqual({ 'Fn::GetAtt': [idOf(stack, stack.delivery.deadLetterQueue), 'Arn'] });
    expect(outputs.StreamFailureQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.delivery.streamFailureQueue) });
    expect(outputs.SyncQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.syncs.queue) });
    expect(outputs.SyncDeadLetterQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.syncs.deadLetterQueue) });
    expect(outputs.SyncDeadLetterQueueArn?.Value).toEqual({ 'Fn::GetAtt': [idOf(stack, stack.syncs.deadLetterQueue), 'Arn'] });
    expect(outputs.SyncWorkerFunctionName?.Value).toEqual({ Ref: idOf(stack, stack.syncs.worker.function) });
    expect(outputs.AuditStreamQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.auditStreams.queue) });
    expect(outputs.AuditStreamDeadLetterQueueArn?.Value).toEqual({
      'Fn::GetAtt': [idOf(stack, stack.auditStreams.deadLetterQueue), 'Arn'],
    });
    expect(outputs.AuditStreamWorkerFunctionName?.Value).toEqual({ Ref: idOf(stack, stack.auditStreams.worker.function) });
    expect(JSON.stringify(outputs.DashboardUrl?.Value)).toContain(`{"Ref":"${idOf(stack, stack.monitoring.dashboard.dashboard)}"}`);
  });

  it('logs API access as JSON with the route key and API id, never the body, query, Authorization or other headers', () => {
    const [, apiStage] = only(template, 'AWS::ApiGatewayV2::Stage');
    const format: string = apiStage.Properties.AccessLogSettings.Format;
    const fields = JSON.parse(format) as Record<string, string>;
    expect(fields).toMatchObject({
      requestId: '$context.requestId',
      apiId: '$context.apiId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      ip: '$context.identity.sourceIp',
      latency: '$context.responseLatency',
    });
    expect(format).not.toMatch(/\$context\.authoriz|\$input|\$request|\$method\.request|body|header|querystring|\$context\.path|cookie/i);
    const [logGroupId] = apiStage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'] as [string, 'Arn'];
    expect(logGroupId).toBe(idOf(stack, stack.api.accessLogs));
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId]?.Properties.RetentionInDays).toBe(30);
  });

  it('hard-codes no account, region or partition anywhere in the template', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/\b\d{12}\b/);
    expect(text).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast)-\d\b/);
    expect(text).not.toMatch(/arn:aws(-[a-z]+)?:/);
  });
});

function integrationOf(route: Resource, integrations: Record<string, Record<string, any>>): Resource {
  const [, parts] = route.Properties.Target['Fn::Join'] as [string, [string, { Ref: string }]];
  const integration = integrations[parts[1].Ref];
  expect(integration).toBeDefined();
  return integration as Resource;
}
