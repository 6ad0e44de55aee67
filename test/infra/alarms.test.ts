import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import {
  AUDIT_CHANGE_METRIC,
  AUDIT_STREAM_DISABLED_METRIC,
  AUDIT_STREAM_FAILED_METRIC,
  SYNC_FAILING_METRIC,
} from '../../shared/platform/metrics-env.ts';
import { FUNCTION_NAMES, functionsOf, idOf, makeOutdir, only, type Resource, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;

beforeAll(async () => {
  outdir = await makeOutdir('infra-alarms-');
  // Act
  ({ stack, template } = synth(outdir.dir, { alarmEmail: 'oncall@example.com' }));
});

afterAll(async () => {
  await outdir.cleanup();
});

describe('alarms', () => {
  function alarm(name: string): Record<string, any> {
    const found = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).filter(
      (candidate) => candidate.Properties.AlarmName === `SecretsService-test-${name}`,
    );
    expect(found, `alarm ${name}`).toHaveLength(1);
    return found[0]!.Properties;
  }

  it('go off when either dead-letter queue holds a message', () => {
    for (const [name, queue] of [
      ['delivery-dlq-not-empty', stack.delivery.deadLetterQueue],
      ['stream-failures-not-empty', stack.delivery.streamFailureQueue],
    ] as const) {
      expect(alarm(name)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack, queue), 'QueueName'] } }],
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
      });
    }
  });

  it('go off when the oldest delivery message is 15 minutes old and when the fan-out lags 5 minutes behind the stream', () => {
    expect(alarm('delivery-queue-oldest-message-age')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 900,
      EvaluationPeriods: 2,
    });
    expect(alarm('fanout-iterator-age')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack, stack.delivery.functions['webhook-fanout'].function) } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 300_000,
    });
  });

  it('go off on an API 5xx rate above 5% of at least 20 requests in 5 minutes', () => {
    const api = { Name: 'ApiId', Value: { Ref: idOf(stack, stack.api.httpApi) } };
    expect(alarm('api-5xx-rate')).toMatchObject({
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 5,
      Metrics: [
        { Expression: 'IF(requests >= 20, 100 * FILL(errors, 0) / requests, 0)', ReturnData: true },
        {
          Id: 'errors',
          ReturnData: false,
          MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: [api] }, Period: 300, Stat: 'Sum' },
        },
        {
          Id: 'requests',
          ReturnData: false,
          MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: [api] }, Period: 300, Stat: 'Sum' },
        },
      ],
    });
  });

  it('go off on a single audit entry overwritten or removed, as the fan-out counts them from the stream', () => {
    expect(alarm('audit-entry-changed')).toMatchObject({
      Namespace: AUDIT_CHANGE_METRIC.namespace,
      MetricName: AUDIT_CHANGE_METRIC.name,
      Dimensions: [{ Name: 'service', Value: AUDIT_CHANGE_METRIC.dimensions.service }],
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('go off on a single failed rotation in 5 minutes, every step summed, as the runner publishes RotationFailures', () => {
    expect(alarm('rotation-failures')).toMatchObject({
      Namespace: 'SecretsService',
      MetricName: 'RotationFailures',
      // The runner's [service] dimension set: the total over every step (shared/rotation/rotation-metrics.ts).
      Dimensions: [{ Name: 'service', Value: 'rotation' }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });

  it('go off when the rotation dead-letter queue holds a step', () => {
    expect(alarm('rotation-dlq-not-empty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack, stack.rotation.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('go off on a single sync that became failing in 5 minutes, as the sync worker publishes SyncsFailing', () => {
    expect(alarm('syncs-failing')).toMatchObject({
      Namespace: SYNC_FAILING_METRIC.namespace,
      MetricName: SYNC_FAILING_METRIC.name,
      Dimensions: Object.entries(SYNC_FAILING_METRIC.dimensions).map(([Name, Value]) => ({ Name, Value })),
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });

  it('go off when the sync dead-letter queue holds a push', () => {
    expect(alarm('sync-dlq-not-empty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack, stack.syncs.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('go off on 3 audit stream batches failed in an hour, a single stream disabled, and a message in the audit stream DLQ', () => {
    const dimensions = (metric: typeof AUDIT_STREAM_FAILED_METRIC | typeof AUDIT_STREAM_DISABLED_METRIC) =>
      Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value }));
    expect(alarm('audit-streams-failing')).toMatchObject({
      Namespace: AUDIT_STREAM_FAILED_METRIC.namespace,
      MetricName: AUDIT_STREAM_FAILED_METRIC.name,
      Dimensions: dimensions(AUDIT_STREAM_FAILED_METRIC),
      Statistic: 'Sum',
      Period: 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 3,
    });
    expect(alarm('audit-stream-disabled')).toMatchObject({
      Namespace: AUDIT_STREAM_DISABLED_METRIC.namespace,
      MetricName: AUDIT_STREAM_DISABLED_METRIC.name,
      Dimensions: dimensions(AUDIT_STREAM_DISABLED_METRIC),
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    expect(alarm('audit-stream-dlq-not-empty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack, stack.auditStreams.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('go off on any error of any function, one alarm per function', () => {
    for (const name of FUNCTION_NAMES) {
      expect(alarm(`${name}-errors`)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack, functionsOf(stack)[name].function) } }],
        Statistic: 'Sum',
        Period: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
      });
    }
  });

  it('go off on a digester run that failed or left a workspace undigested in the hour: its Errors plus the runs its log reports failed', () => {
    const digester = stack.auditDigests.digester;
    expect(alarm('audit-digest-missed')).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      Metrics: [
        { Expression: 'FILL(errors, 0) + FILL(failed, 0)', ReturnData: true },
        {
          Id: 'errors',
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: 'Errors',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack, digester.function) } }],
            },
            Period: 3600,
            Stat: 'Sum',
          },
        },
        {
          Id: 'failed',
          ReturnData: false,
          MetricStat: { Metric: { Namespace: 'SecretsService', MetricName: 'AuditDigestRunsFailed' }, Period: 3600, Stat: 'Sum' },
        },
      ],
    });
    // The count comes from the digester's own log, from the line its handler writes for such a run.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: idOf(stack, digester.logGroup) },
      FilterPattern: '{ $.message = "audit digester run had failed workspaces" }',
      MetricTransformations: [{ MetricNamespace: 'SecretsService', MetricName: 'AuditDigestRunsFailed', MetricValue: '1' }],
    });
  });

  it('go off when the digester has not run for 2 hours, no data counting as no run', () => {
    expect(alarm('audit-digester-not-running')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack, stack.auditDigests.digester.function) } }],
      Statistic: 'Sum',
      Period: 7200,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  });

  it('notify the alarm topic when they go off and when they recover, and treat no data as fine', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    const [topicId] = only(template, 'AWS::SNS::Topic');
    // Sixteen service alarms (the 401 spike added by the hardening issue, the changed audit entry by the audit one, the
    // failed rotations and the rotation dead-letter queue by rotation, the failing syncs and the sync dead-letter
    // queue by syncs, the two digest alarms by tamper evidence, the three of audit streams) and one per function.
    expect(alarms).toHaveLength(16 + FUNCTION_NAMES.length);
    for (const { Properties } of alarms) {
      expect(Properties).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        // A digester that never runs publishes nothing: that silence is its alarm.
        TreatMissingData: Properties.AlarmName === 'SecretsService-test-audit-digester-not-running' ? 'breaching' : 'notBreaching',
        AlarmDescription: expect.stringContaining('docs/operations.md'),
      });
    }
  });
});

describe('alarm topic', () => {
  it('sends to the configured e-mail address and accepts publishing over TLS only', () => {
    const [topicId] = only(template, 'AWS::SNS::Topic');
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: topicId },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      // The key-change rule's publish grant stands beside the TLS deny (issue 11).
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('has no subscription when no alarm e-mail is configured', () => {
    // Act
    const { template: withoutEmail } = synth(outdir.dir);

    // Assess
    expect(withoutEmail.findResources('AWS::SNS::Subscription')).toEqual({});
    expect(Object.keys(withoutEmail.findResources('AWS::SNS::Topic'))).toHaveLength(1);
  });
});
