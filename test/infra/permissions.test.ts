import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import {
  canonical,
  FUNCTION_NAMES,
  type FunctionName,
  functionsOf,
  idOf,
  makeOutdir,
  only,
  type Resource,
  type Statement,
  statementsOf,
  synth,
} from './synth.ts';

/** What every API function needs: authentication (BatchGetItem), the cursor key (GetItem, PutItem), lastUsedAt (UpdateItem), lists. */
const API_COMMON = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];
const SECRET_VALUE_CONTEXT = ['workspaceId', 'secretId', 'version'];
const SIGNING_SECRET_CONTEXT = ['workspaceId', 'endpointId'];
const IDEMPOTENT_ANSWER_CONTEXT = ['workspaceId', 'idempotencyRecord'];

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
/** Builders of the statements this stack should contain, from the template's own logical ids. */
let expectedFor: (name: FunctionName) => Statement[];

beforeAll(async () => {
  outdir = await makeOutdir('infra-permissions-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  expectedFor = expectations();
});

afterAll(async () => {
  await outdir.cleanup();
});

/** The exact statements of each function, written out here independently of lib/access.ts. */
function expectations(): (name: FunctionName) => Statement[] {
  const [tableId] = only(template, 'AWS::DynamoDB::Table');
  const [keyId] = only(template, 'AWS::KMS::Key');
  const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
  const queueArn = { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'Arn'] };
  const allow = (Action: string[], Resource: unknown, Condition?: unknown): Statement => ({
    Effect: 'Allow',
    Action,
    Resource,
    ...(Condition !== undefined && { Condition }),
  });
  const table = (actions: string[]) => allow(actions, tableArn);
  const indexArn = (name: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${name}`]] });
  const index = (...names: string[]) => allow(['dynamodb:Query'], names.length === 1 ? indexArn(names[0]!) : names.map(indexArn));
  const kms = (actions: string[], context: string[]) =>
    allow(actions, { 'Fn::GetAtt': [keyId, 'Arn'] }, {
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': context },
      Null: Object.fromEntries(context.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
    });
  const send = allow(['sqs:SendMessage'], queueArn);
  const logs = (name: FunctionName) =>
    allow(['logs:CreateLogStream', 'logs:PutLogEvents'], { 'Fn::GetAtt': [idOf(stack, functionsOf(stack)[name].logGroup), 'Arn'] });
  const schedules = {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':schedule/prod-webhook-retries/*']],
  };
  const own: Record<FunctionName, Statement[]> = {
    projects: [table([...API_COMMON, 'dynamodb:ConditionCheckItem'])],
    environments: [table([...API_COMMON, 'dynamodb:ConditionCheckItem'])],
    secrets: [
      table([...API_COMMON, 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem']),
      index('GSI1'),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], SECRET_VALUE_CONTEXT),
    ],
    audit: [table(API_COMMON)],
    // Recorded idempotent answers that carry the token are sealed and opened (issue 13).
    'access-keys': [table(API_COMMON), kms(['kms:GenerateDataKey', 'kms:Decrypt'], IDEMPOTENT_ANSWER_CONTEXT)],
    webhooks: [
      table([...API_COMMON, 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']),
      index('GSI1', 'GSI3'),
      kms(['kms:GenerateDataKey'], SIGNING_SECRET_CONTEXT),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], IDEMPOTENT_ANSWER_CONTEXT),
    ],
    'webhook-deliveries': [table(API_COMMON), index('GSI3'), send],
    // Serves a static document (issue 12): its logs, and the audit deny every role carries.
    openapi: [],
    'webhook-fanout': [
      // UpdateItem: a first attempt whose message could not be queued is handed to the sweeper.
      table(['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
      send,
      // The stream event source: read the stream, and put failed batches on the failure queue.
      allow(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], { 'Fn::GetAtt': [tableId, 'StreamArn'] }),
      allow(['dynamodb:ListStreams'], '*'),
      allow(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], { 'Fn::GetAtt': [idOf(stack, stack.delivery.streamFailureQueue), 'Arn'] }),
    ],
    'delivery-worker': [
      table(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem']),
      index('GSI1', 'GSI3'),
      kms(['kms:Decrypt'], SIGNING_SECRET_CONTEXT),
      send,
      // The queue event source.
      allow(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'], queueArn),
      allow(['scheduler:CreateSchedule'], schedules),
      allow(['iam:PassRole'], { 'Fn::GetAtt': [idOf(stack, stack.delivery.schedulerRole), 'Arn'] }, {
        StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      }),
    ],
    'delivery-sweeper': [table(['dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem']), index('GSI2'), send],
  };
  // Every role: audit entries can never be updated or deleted (issue 11), nor touched by a batch write, except by
  // the secrets function, whose bulk reveal puts its audit entries with BatchWriteItem.
  const auditDeny = (name: FunctionName): Statement => ({
    Sid: 'AuditEntriesAreImmutable',
    Effect: 'Deny',
    Action: [...(name === 'secrets' ? [] : ['dynamodb:BatchWriteItem']), 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    Resource: tableArn,
    Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['WS#*#AUDIT'] } },
  });
  return (name) => canonical([logs(name), auditDeny(name), ...own[name]]);
}

describe('IAM: least privilege per function', () => {
  it.each(FUNCTION_NAMES)('grants %s exactly the actions its code uses, on its resources only', (name) => {
    // Assess
    expect(canonical(statementsOf(template, stack, functionsOf(stack)[name]))).toEqual(expectedFor(name));
  });

  it('gives each function its own role, with no managed policy and nothing attached besides its own policy', () => {
    const roleIds = Object.values(functionsOf(stack)).map((fn) => idOf(stack, fn.role));
    expect(new Set(roleIds).size).toBe(FUNCTION_NAMES.length);
    for (const role of Object.values(template.findResources('AWS::IAM::Role')) as Resource[]) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.Policies).toBeUndefined();
    }
    const functions = template.findResources('AWS::Lambda::Function');
    for (const fn of Object.values(functionsOf(stack))) {
      expect(functions[idOf(stack, fn.function)]?.Properties.Role).toEqual({ 'Fn::GetAtt': [idOf(stack, fn.role), 'Arn'] });
    }
  });

  it('grants no Scan, no service-wide action, no index wildcard, and "*" only for dynamodb:ListStreams', () => {
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions.filter((action) => /Scan|:\*$|^\*$/.test(action))).toEqual([]);
    expect(JSON.stringify(statements)).not.toContain('/index/*');
    const onEverything = statements.filter((s) => [s.Resource].flat().includes('*'));
    expect(onEverything).toEqual([{ Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' }]);
  });

  it('allows iam:PassRole for the scheduler role only, and only to EventBridge Scheduler', () => {
    const passRole = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .filter((s) => [s.Action].flat().some((action) => action.startsWith('iam:')));
    expect(passRole).toEqual([
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [idOf(stack, stack.delivery.schedulerRole), 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ]);
  });
});

describe('IAM: the role EventBridge Scheduler assumes', () => {
  it('is assumed only by scheduler.amazonaws.com for schedules of this account and schedule group', () => {
    const role = template.findResources('AWS::IAM::Role')[idOf(stack, stack.delivery.schedulerRole)] as Resource;
    const [groupId] = only(template, 'AWS::Scheduler::ScheduleGroup');
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } },
        },
      },
    ]);
  });

  it('may only send messages to the delivery queue', () => {
    const roleId = idOf(stack, stack.delivery.schedulerRole);
    const policies = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`),
    );
    expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'Arn'] } },
    ]);
  });
});
