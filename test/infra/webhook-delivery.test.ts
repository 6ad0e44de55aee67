import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { idOf, makeOutdir, only, type Resource, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;

beforeAll(async () => {
  outdir = await makeOutdir('infra-webhooks-');
  // Act
  ({ stack, template } = synth(outdir.dir));
});

afterAll(async () => {
  await outdir.cleanup();
});

function resource(type: string, id: string): Resource {
  const found = template.findResources(type)[id];
  expect(found).toBeDefined();
  return found as Resource;
}

function mappingOf(functionId: string): Resource {
  const mappings = (Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[]).filter(
    (mapping) => mapping.Properties.FunctionName.Ref === functionId,
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]!;
}

function timeoutOf(functionId: string): number {
  return resource('AWS::Lambda::Function', functionId).Properties.Timeout;
}

describe('delivery queue', () => {
  it('redrives to a dead-letter queue after 5 receives, with a visibility timeout six times the worker timeout', () => {
    const queue = resource('AWS::SQS::Queue', idOf(stack, stack.delivery.queue)).Properties;
    const workerTimeout = timeoutOf(idOf(stack, stack.delivery.functions['delivery-worker'].function));
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [idOf(stack, stack.delivery.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(workerTimeout).toBeGreaterThanOrEqual(30);
    expect(queue.VisibilityTimeout).toBeGreaterThan(workerTimeout);
    expect(queue.VisibilityTimeout).toBe(6 * workerTimeout);
    expect(resource('AWS::SQS::Queue', idOf(stack, stack.delivery.deadLetterQueue)).Properties.MessageRetentionPeriod).toBe(14 * 86_400);
  });

  it('encrypts every queue at rest and refuses any request that is not over TLS', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    // The delivery queue, its dead-letter queue and the stream failure queue; the rotation queue and its dead-letter
    // queue; the sync queue and its dead-letter queue; the audit stream queue and its dead-letter queue.
    expect(Object.keys(queues)).toHaveLength(9);
    for (const [queueId, queue] of Object.entries(queues) as [string, Resource][]) {
      expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId).toBeTruthy();
      const policies = (Object.values(template.findResources('AWS::SQS::QueuePolicy')) as Resource[]).filter((policy) =>
        JSON.stringify(policy.Properties.Queues).includes(`"${queueId}"`),
      );
      expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });
});

describe('fan-out', () => {
  it('reads the table stream from the oldest record, with bisect-on-error, retry limit, max record age and partial failures', () => {
    const [tableId] = only(template, 'AWS::DynamoDB::Table');
    const mapping = mappingOf(idOf(stack, stack.delivery.functions['webhook-fanout'].function));
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      MaximumRecordAgeInSeconds: 12 * 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [idOf(stack, stack.delivery.streamFailureQueue), 'Arn'] } } },
    });
  });

  it('is invoked only for audit entries inserted, changed or removed, the records shared/webhooks/deliveries/fanout.ts acts on', () => {
    const mapping = mappingOf(idOf(stack, stack.delivery.functions['webhook-fanout'].function));
    const patterns = (mapping.Properties.FilterCriteria.Filters as { Pattern: string }[]).map((filter) => JSON.parse(filter.Pattern));
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['AuditEntry'] } } } },
      // A changed or removed audit entry is reported (`auditChangeOf`): the old image says what it was.
      { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { type: { S: ['AuditEntry'] } } } },
    ]);
    expect(
      template.findResources('AWS::DynamoDB::Table')[only(template, 'AWS::DynamoDB::Table')[0]]?.Properties.StreamSpecification,
    ).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });
});

describe('delivery worker', () => {
  it('consumes the delivery queue in batches of 10 with partial batch responses and a maximum concurrency', () => {
    const mapping = mappingOf(idOf(stack, stack.delivery.functions['delivery-worker'].function));
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('has exactly the two event source mappings of the pipeline, besides the rotation runner’s and the two workers’', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];
    const others = [stack.rotation.runner, stack.syncs.worker, stack.auditStreams.worker].map((fn) => idOf(stack, fn.function));
    expect(mappings.filter((mapping) => !others.includes(mapping.Properties.FunctionName.Ref))).toHaveLength(2);
    expect(mappings).toHaveLength(5);
  });

  it('feeds the audit stream worker from its queue, 10 messages at a time, at most 5 at once, reporting failed messages', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];
    const worker = mappings.filter((mapping) => mapping.Properties.FunctionName.Ref === idOf(stack, stack.auditStreams.worker.function));
    expect(worker).toHaveLength(1);
    expect(worker[0]!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack, stack.auditStreams.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    // Six times the worker's 60 s, and a dead-letter queue after 5 receives, kept 14 days.
    const queues = template.findResources('AWS::SQS::Queue');
    expect((queues[idOf(stack, stack.auditStreams.queue)] as Resource).Properties).toMatchObject({
      VisibilityTimeout: 360,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [idOf(stack, stack.auditStreams.deadLetterQueue), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    expect((queues[idOf(stack, stack.auditStreams.deadLetterQueue)] as Resource).Properties.MessageRetentionPeriod).toBe(14 * 86_400);
  });

  it('feeds the sync worker from the sync queue, 5 messages at a time, at most 5 at once, reporting failed messages', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];
    const worker = mappings.filter((mapping) => mapping.Properties.FunctionName.Ref === idOf(stack, stack.syncs.worker.function));
    expect(worker).toHaveLength(1);
    expect(worker[0]!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack, stack.syncs.queue), 'Arn'] },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    // Six times the worker's 120 s (AWS's guidance), and a dead-letter queue after 5 receives, kept 14 days.
    const queue = template.findResources('AWS::SQS::Queue')[idOf(stack, stack.syncs.queue)] as Resource;
    expect(queue.Properties).toMatchObject({
      VisibilityTimeout: 720,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [idOf(stack, stack.syncs.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(
      (template.findResources('AWS::SQS::Queue')[idOf(stack, stack.syncs.deadLetterQueue)] as Resource).Properties.MessageRetentionPeriod,
    ).toBe(14 * 86_400);
  });
});

describe('EventBridge Scheduler', () => {
  it('keeps retries in the stage’s own schedule group', () => {
    const group = template.findResources('AWS::Scheduler::ScheduleGroup')[idOf(stack, stack.delivery.scheduleGroup)] as Resource;
    expect(group.Properties).toEqual({ Name: 'prod-webhook-retries' });
  });
});

describe('sweeper', () => {
  it('runs every 5 minutes from an EventBridge rule, without retrying a failed run', () => {
    const sweeperId = idOf(stack, stack.delivery.functions['delivery-sweeper'].function);
    // The scheduled rule that targets it (the secret purger has its own: test/infra/secret-purge.test.ts).
    const [rule] = (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter(
      (r) => r.Properties.ScheduleExpression && r.Properties.Targets?.[0]?.Arn?.['Fn::GetAtt']?.[0] === sweeperId,
    );
    expect(rule).toBeDefined();
    expect(rule!.Properties).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweeperId, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: sweeperId },
      MaximumRetryAttempts: 0,
    });
  });
});
