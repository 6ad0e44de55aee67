import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRotationFunctionArns } from '../../lib/secret-rotation.ts';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { ROTATION_FUNCTION } from '../../shared/platform/functions.ts';
import { FUNCTION_NAMES, functionsOf, idOf, makeOutdir, type Resource, type Statement, statementsOf, synth } from './synth.ts';

/**
 * What an operator would list: every function of one name prefix, one function by its alias, and each workspace's own
 * functions (`${workspaceId}`, decisions.md v1.4).
 */
const PATTERNS = [
  'arn:aws:lambda:eu-west-1:111122223333:function:rotate-*',
  'arn:aws:lambda:eu-west-1:111122223333:function:pg-rotation:live',
  'arn:aws:lambda:eu-west-1:111122223333:function:ws-${workspaceId}-rotation',
];
/** PATTERNS as IAM holds them: it cannot know the caller's workspace, so `${workspaceId}` (IAM's variable syntax) is `*`. */
const GRANTED = [
  'arn:aws:lambda:eu-west-1:111122223333:function:rotate-*',
  'arn:aws:lambda:eu-west-1:111122223333:function:pg-rotation:live',
  'arn:aws:lambda:eu-west-1:111122223333:function:ws-*-rotation',
];

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
/** The stack with defaults: no rotationFunctionArns. */
let stack: ServiceStack;
let template: Template;
/** The stack with PATTERNS as rotationFunctionArns. */
let configured: { stack: ServiceStack; template: Template };

beforeAll(async () => {
  outdir = await makeOutdir('infra-rotation-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  configured = synth(outdir.dir, { rotationFunctionArns: PATTERNS });
});

afterAll(async () => {
  await outdir.cleanup();
});

function resource(type: string, id: string): Resource {
  const found = template.findResources(type)[id];
  expect(found).toBeDefined();
  return found as Resource;
}

/** The environment of a function of `on`. */
function envOf(on: { stack: ServiceStack; template: Template }, name: (typeof FUNCTION_NAMES)[number]): Record<string, unknown> {
  const fn = on.template.findResources('AWS::Lambda::Function')[idOf(on.stack, functionsOf(on.stack)[name].function)];
  return fn?.Properties.Environment.Variables;
}

/** Every function's statements that name an action of `service` (`sqs`, `lambda`), by function. */
function statementsNaming(on: { stack: ServiceStack; template: Template }, service: string): Record<string, Statement[]> {
  return Object.fromEntries(
    FUNCTION_NAMES.map((name) => [
      name,
      statementsOf(on.template, on.stack, functionsOf(on.stack)[name]).filter((s) => s.Action.some((a) => a.startsWith(`${service}:`))),
    ]),
  );
}

describe('rotation queue', () => {
  it('redrives a step to its dead-letter queue after 3 receives, with a visibility timeout past the runner’s timeout', () => {
    // Assess
    const queue = resource('AWS::SQS::Queue', idOf(stack, stack.rotation.queue)).Properties;
    const runnerTimeout = resource('AWS::Lambda::Function', idOf(stack, stack.rotation.runner.function)).Properties.Timeout;
    expect(runnerTimeout).toBe(ROTATION_FUNCTION.timeoutSeconds);
    expect(queue).toMatchObject({
      VisibilityTimeout: runnerTimeout + 60,
      MessageRetentionPeriod: 4 * 86_400,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [idOf(stack, stack.rotation.deadLetterQueue), 'Arn'] }, maxReceiveCount: 3 },
    });
    expect(resource('AWS::SQS::Queue', idOf(stack, stack.rotation.deadLetterQueue)).Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 86_400,
      SqsManagedSseEnabled: true,
    });
  });

  it('refuses any request to either queue that is not over TLS', () => {
    for (const queue of [stack.rotation.queue, stack.rotation.deadLetterQueue]) {
      const policies = (Object.values(template.findResources('AWS::SQS::QueuePolicy')) as Resource[]).filter((policy) =>
        JSON.stringify(policy.Properties.Queues).includes(`"${idOf(stack, queue)}"`),
      );
      expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('is consumed by the runner one message at a time, with partial batch responses, at most 5 at once', () => {
    // Assess
    const mappings = (Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[]).filter(
      (mapping) => mapping.Properties.FunctionName.Ref === idOf(stack, stack.rotation.runner.function),
    );
    expect(mappings.map((mapping) => mapping.Properties)).toEqual([
      {
        FunctionName: { Ref: idOf(stack, stack.rotation.runner.function) },
        EventSourceArn: { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] },
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 5 },
      },
    ]);
  });

  it('outputs the queue, the dead-letter queue and the runner under stable names', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.RotationQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.rotation.queue) });
    expect(outputs.RotationDeadLetterQueueUrl?.Value).toEqual({ Ref: idOf(stack, stack.rotation.deadLetterQueue) });
    expect(outputs.RotationDeadLetterQueueArn?.Value).toEqual({ 'Fn::GetAtt': [idOf(stack, stack.rotation.deadLetterQueue), 'Arn'] });
    expect(outputs.RotationFunctionName?.Value).toEqual({ Ref: idOf(stack, stack.rotation.runner.function) });
  });
});

describe('who may send to the rotation queue', () => {
  it('lets the secrets group, the AWS API and the runner send to it, and the first two to no other queue', () => {
    // Prepare
    const rotationQueue = { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] };
    const sqs = statementsNaming({ stack, template }, 'sqs');
    const sends = (name: string) =>
      sqs[name]!.filter((s) => s.Action.includes('sqs:SendMessage') && JSON.stringify(s.Resource) === JSON.stringify(rotationQueue));

    // Assess
    expect(FUNCTION_NAMES.filter((name) => sends(name).length > 0)).toEqual(['secrets', 'aws', 'rotation']);
    for (const name of ['secrets', 'aws'] as const) {
      expect({ name, sqs: sqs[name] }).toEqual({ name, sqs: [{ Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: rotationQueue }] });
      expect(envOf({ stack, template }, name).ROTATION_QUEUE_URL).toEqual({ Ref: idOf(stack, stack.rotation.queue) });
    }
  });

  it('lets no other role of the stack send to it (but the rotation scheduler role; not the delivery one, nor the console deployment)', () => {
    const senders = ['secrets', 'aws', 'rotation'] as const;
    const roles = new Set([
      ...senders.map((name) => idOf(stack, functionsOf(stack)[name].role)),
      idOf(stack, stack.rotation.schedulerRole),
    ]);
    const queueId = idOf(stack, stack.rotation.queue);
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]) {
      const naming = (policy.Properties.PolicyDocument.Statement as Statement[]).filter((s) =>
        JSON.stringify(s.Resource).includes(`"${queueId}"`),
      );
      if (naming.length === 0) continue;
      const [role] = policy.Properties.Roles as { Ref: string }[];
      expect(roles.has(role!.Ref)).toBe(true);
    }
  });
});

describe('rotation schedules (EventBridge Scheduler)', () => {
  /** Every policy statement of the stack with the roles it is attached to. */
  const attached = () =>
    (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({
        roles: policy.Properties.Roles as { Ref: string }[],
        statement: { ...statement, Action: [statement.Action].flat().sort() },
      })),
    );
  const groupArn = () => ({ 'Fn::GetAtt': [idOf(stack, stack.rotation.scheduleGroup), 'Arn'] });

  it('keeps them in the stage’s own rotation group, which goes with the stack', () => {
    const group = resource('AWS::Scheduler::ScheduleGroup', idOf(stack, stack.rotation.scheduleGroup));
    expect(group.Properties).toEqual({ Name: 'prod-rotations' });
    expect(group.DeletionPolicy).toBe('Delete');
    expect(template.findOutputs('*').RotationScheduleGroupName?.Value).toBe('prod-rotations');
  });

  it('has Scheduler assume its role only for schedules of this account and of the rotation group', () => {
    const role = resource('AWS::IAM::Role', idOf(stack, stack.rotation.schedulerRole));
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': groupArn() } },
      },
    ]);
  });

  it('lets the scheduler role only send messages to the rotation queue', () => {
    const roleId = idOf(stack, stack.rotation.schedulerRole);
    const statements = attached().filter(({ roles }) => roles.some((role) => role.Ref === roleId));
    expect(statements).toEqual([
      {
        roles: [{ Ref: roleId }],
        statement: { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] } },
      },
    ]);
  });

  it('lets the runner alone make, change and delete schedules, only rotate-* of the rotation group, passing only that role', () => {
    // Prepare
    const rotateSchedules = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':scheduler:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':schedule/prod-rotations/rotate-*',
        ],
      ],
    };
    const runnerRole = { Ref: idOf(stack, stack.rotation.runner.role) };
    const naming = (text: string) => attached().filter(({ statement }) => JSON.stringify(statement).includes(text));

    // Assess: whatever names the rotation group, or passes the rotation scheduler role, is the runner's
    expect(naming('prod-rotations')).toEqual([
      {
        roles: [runnerRole],
        statement: {
          Effect: 'Allow',
          Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'],
          Resource: rotateSchedules,
        },
      },
    ]);
    expect(naming(`"${idOf(stack, stack.rotation.schedulerRole)}"`)).toEqual([
      {
        roles: [runnerRole],
        statement: {
          Effect: 'Allow',
          Action: ['iam:PassRole'],
          Resource: { 'Fn::GetAtt': [idOf(stack, stack.rotation.schedulerRole), 'Arn'] },
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        },
      },
    ]);
    // No API function touches a schedule: secrets and aws ask the runner through the queue.
    const scheduler = statementsNaming({ stack, template }, 'scheduler');
    expect(FUNCTION_NAMES.filter((name) => scheduler[name]!.length > 0)).toEqual(['delivery-worker', 'rotation']);
  });

  it('tells the runner alone the queue ARN, the group and the role (the functions that skip schedules without them)', () => {
    const told = FUNCTION_NAMES.filter((name) => envOf({ stack, template }, name).ROTATION_SCHEDULE_GROUP !== undefined);
    expect(told).toEqual(['rotation']);
    expect(envOf({ stack, template }, 'rotation')).toMatchObject({
      ROTATION_QUEUE_ARN: { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] },
      ROTATION_SCHEDULE_GROUP: 'prod-rotations',
      ROTATION_SCHEDULER_ROLE_ARN: { 'Fn::GetAtt': [idOf(stack, stack.rotation.schedulerRole), 'Arn'] },
    });
  });
});

describe('rotation functions the runner may invoke (context rotationFunctionArns)', () => {
  it('grants no lambda:InvokeFunction and passes no ROTATION_FUNCTION_ARNS while the list is empty', () => {
    // Assess
    const lambda = statementsNaming({ stack, template }, 'lambda');
    expect(FUNCTION_NAMES.filter((name) => lambda[name]!.length > 0)).toEqual([]);
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('lambda:InvokeFunction');
    for (const name of FUNCTION_NAMES) expect(envOf({ stack, template }, name)).not.toHaveProperty('ROTATION_FUNCTION_ARNS');
  });

  it('grants the runner alone lambda:InvokeFunction on exactly the listed patterns (${workspaceId} as *); it and the two that configure rotations get them comma-joined, as listed', () => {
    // Assess
    const lambda = statementsNaming(configured, 'lambda');
    expect(lambda.rotation).toEqual([{ Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: GRANTED }]);
    expect(JSON.stringify(configured.template.findResources('AWS::IAM::Policy'))).not.toContain('${workspaceId}');
    expect(FUNCTION_NAMES.filter((name) => lambda[name]!.length > 0)).toEqual(['rotation']);
    // No other role of the stack (the console's deployment, say) got it either.
    const invoking = (Object.values(configured.template.findResources('AWS::IAM::Policy')) as Resource[]).filter((policy) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('lambda:InvokeFunction'),
    );
    expect(invoking.map((policy) => policy.Properties.Roles)).toEqual([
      [{ Ref: idOf(configured.stack, configured.stack.rotation.runner.role) }],
    ]);
    // The secrets group and the AWS API refuse to configure a function outside the list (shared/rotation/rotation-functions.ts).
    const told = FUNCTION_NAMES.filter((name) => envOf(configured, name).ROTATION_FUNCTION_ARNS !== undefined);
    expect(told).toEqual(['secrets', 'aws', 'rotation']);
    for (const name of told) expect(envOf(configured, name).ROTATION_FUNCTION_ARNS).toBe(PATTERNS.join(','));
  });

  it('takes ARN patterns of Lambda functions in any partition, with wildcards and qualifiers', () => {
    const patterns = [
      'arn:aws:lambda:*:111122223333:function:*',
      'arn:aws-cn:lambda:cn-north-1:111122223333:function:rotate',
      'arn:aws-us-gov:lambda:us-gov-west-1:1111222233??:function:rotate-db:$LATEST',
      'arn:aws:lambda:eu-west-1:*:function:team-?-rotation:prod',
    ];
    expect(checkRotationFunctionArns(patterns)).toEqual(patterns);
  });

  it.each([
    ['"*" alone', '*', /rotationFunctionArns: "\*" would let the runner invoke any function/],
    ['another service', 'arn:aws:s3:::rotation-bucket/*', /"arn:aws:s3:::rotation-bucket\/\*" is not a Lambda function ARN pattern/],
    ['a role', 'arn:aws:iam::111122223333:role/rotation', /is not a Lambda function ARN pattern/],
    ['a layer', 'arn:aws:lambda:eu-west-1:111122223333:layer:rotation', /is not a Lambda function ARN pattern/],
    ['all of Lambda', 'arn:aws:lambda:*', /is not a Lambda function ARN pattern/],
    ['a bare function name', 'rotate-db', /is not a Lambda function ARN pattern/],
    ['a partition that is not AWS', 'arn:other:lambda:eu-west-1:111122223333:function:rotate', /is not a Lambda function ARN pattern/],
    ['a comma inside', 'arn:aws:lambda:eu-west-1:111122223333:function:a,b', /is not a Lambda function ARN pattern/],
    ['${workspaceId} alone', '${workspaceId}', /rotationFunctionArns: "\$\{workspaceId\}" would let the runner invoke any function/],
    ['a misspelt placeholder', 'arn:aws:lambda:eu-west-1:111122223333:function:ws-${workspace}', /is not a Lambda function ARN pattern/],
    ['a placeholder in the service', 'arn:aws:${workspaceId}:eu-west-1:111122223333:function:x', /is not a Lambda function ARN pattern/],
  ])('refuses %s at synth, naming the pattern', (_name, pattern, message) => {
    // Act and Assess: the stack refuses it, whatever else the list holds
    expect(() => checkRotationFunctionArns([PATTERNS[0]!, pattern])).toThrow(message);
  });

  it('stops the synth of the stack on a refused pattern', () => {
    expect(() => synth(outdir.dir, { rotationFunctionArns: ['*'] })).toThrow(
      /rotationFunctionArns: "\*" would let the runner invoke any function/,
    );
  });
});
