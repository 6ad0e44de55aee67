import { Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, type IWidget, MathExpression, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { AuditDigestsConstruct } from './audit-digests.ts';
import { DeliveryHealthDashboard } from './delivery-dashboard.ts';
import { pascalCase, type ServiceFunction } from './service-function.ts';
import type { SecretRotationConstruct } from './secret-rotation.ts';
import type { SyncsConstruct } from './syncs.ts';
import {
  apiServerErrorRate,
  auditEntriesChanged,
  digestRunsFailed,
  loginsRateLimited,
  RevealMetrics,
  rotationFailures,
  syncsFailing,
  unauthorizedAnswers,
} from './service-metrics.ts';
import type { WebhookDeliveryConstruct } from './webhook-delivery.ts';

/** An alarm as a feature's construct describes it (lib/audit-streams.ts), for this construct's topic. */
export interface AlarmSpec {
  metric: IMetric;
  threshold: number;
  description: string;
  comparison?: ComparisonOperator;
  evaluationPeriods?: number;
  missingData?: TreatMissingData;
}

/** KMS calls on the secrets key that are reported the moment CloudTrail records them. */
const WATCHED_KEY_CALLS = ['PutKeyPolicy', 'DisableKey', 'ScheduleKeyDeletion'] as const;

/** Alarm thresholds; docs/operations.md explains each alarm and what to do about it. */
export const ALARM_THRESHOLDS = {
  /**
   * The oldest delivery message has waited this long. Healthy traffic stays far below: SQS delays are at most 5
   * minutes and a failing message is seen again after the 3-minute visibility timeout.
   */
  queueOldestMessageAgeSeconds: 15 * 60,
  /** Stream records reach the fan-out this late (normally well under a second). */
  fanoutIteratorAgeMs: 5 * 60_000,
  /** 5xx answers as a share of requests, over 5 minutes... */
  apiServerErrorRatePercent: 5,
  /** ...once there are at least this many requests in those 5 minutes, so one error among three requests pages no one. */
  apiServerErrorMinimumRequests: 20,
  /**
   * 401 answers in 5 minutes. A client with a revoked or mistyped token retrying with backoff stays far below; a
   * script trying tokens (or a fleet that lost its credential) goes over.
   */
  unauthorizedPerFiveMinutes: 200,
  /** Failed rotations in 5 minutes: each one left a secret's value where it was, and may need a person. */
  rotationFailuresPerFiveMinutes: 1,
  /** Digester runs that failed or left a workspace undigested, in an hour (the digester runs once an hour). */
  digestFailuresPerHour: 1,
  /** Hours without a digester run: it is scheduled every hour, so two without one is a missed schedule. */
  digesterSilentHours: 2,
  /** Syncs that became failing (24 hours of failed pushes) in 5 minutes: each needs its admin. */
  syncsFailingPerFiveMinutes: 1,
} as const;

export interface MonitoringConstructProps {
  readonly httpApi: HttpApi;
  readonly accessLogs: ILogGroup;
  readonly delivery: WebhookDeliveryConstruct;
  readonly rotation: SecretRotationConstruct;
  readonly syncs: SyncsConstruct;
  readonly auditDigests: AuditDigestsConstruct;
  /** Audit streams' alarms and dashboard row (lib/audit-streams.ts, which imports AlarmSpec from here). */
  readonly auditStreams: { alarms(): Record<string, AlarmSpec>; widgets(): IWidget[] };
  /** Every function of the stack by its name (route group, pipeline function or the rotation runner). */
  readonly functions: Record<string, ServiceFunction>;
  /** Subscribed to the alarm topic; the address must confirm the subscription. @default no subscription */
  readonly alarmEmail?: string | undefined;
  /** The secrets key: changes to its policy or state are reported on the alarm topic. */
  readonly key: IKey;
}

/**
 * The "delivery health" dashboard and the alarms, which notify the alarm topic when they go off and when they
 * recover. Alarm names start with the stack name, so each stage's alarms are told apart in one account.
 */
export class MonitoringConstruct extends Construct {
  readonly alarmTopic: Topic;
  /** By a short kebab-case name: `delivery-dlq-not-empty`, `secrets-errors`, ... */
  readonly alarms: Record<string, Alarm> = {};
  readonly dashboard: DeliveryHealthDashboard;

  constructor(scope: Construct, id: string, props: MonitoringConstructProps) {
    super(scope, id);
    // Not KMS-encrypted: notifications carry alarm names and numbers only, and CloudWatch cannot publish to a topic
    // under the AWS-managed SNS key (a customer-managed key would need a key policy for CloudWatch, to guard nothing).
    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `${Stack.of(this).stackName} alarms`, enforceSSL: true });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));

    const reveals = new RevealMetrics(this, 'Reveals', { accessLogs: props.accessLogs, httpApi: props.httpApi });
    const logins = loginsRateLimited(this, { accessLogs: props.accessLogs, httpApi: props.httpApi });
    this.addPipelineAlarms(props.delivery);
    this.addRotationAlarms(props.rotation);
    this.addSyncAlarms(props.syncs);
    this.addDigestAlarms(props.auditDigests);
    for (const [name, spec] of Object.entries(props.auditStreams.alarms())) this.addAlarm(name, spec);
    this.addAlarm('api-401-spike', {
      metric: unauthorizedAnswers(this, props),
      threshold: ALARM_THRESHOLDS.unauthorizedPerFiveMinutes,
      description: `More than ${ALARM_THRESHOLDS.unauthorizedPerFiveMinutes} API requests answered 401 AUTH_REQUIRED in 5 minutes.`,
    });
    // The signing key too: a policy change there could let someone else sign digests.
    this.reportKeyChanges([props.key, props.auditDigests.signingKey]);
    this.addAlarm('audit-entry-changed', {
      metric: auditEntriesChanged(),
      threshold: 0,
      description:
        'An audit entry was overwritten or removed on the table, which the service never does (the fan-out saw it on the stream).',
    });
    this.addAlarm('api-5xx-rate', {
      metric: apiServerErrorRate(props.httpApi, ALARM_THRESHOLDS.apiServerErrorMinimumRequests),
      threshold: ALARM_THRESHOLDS.apiServerErrorRatePercent,
      description: `More than ${ALARM_THRESHOLDS.apiServerErrorRatePercent}% of API requests answered 5xx over 5 minutes.`,
    });
    for (const [name, fn] of Object.entries(props.functions)) {
      this.addAlarm(`${name}-errors`, {
        metric: fn.function.metricErrors({ statistic: Stats.SUM, period: Duration.minutes(5) }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `The ${name} function failed (an unhandled error, a timeout or a crash) at least once in 5 minutes.`,
      });
    }
    this.dashboard = new DeliveryHealthDashboard(this, 'Dashboard', {
      httpApi: props.httpApi,
      delivery: props.delivery,
      rotation: props.rotation,
      syncs: props.syncs,
      auditStreams: props.auditStreams,
      functions: props.functions,
      reveals,
      loginsRateLimited: logins,
      alarms: Object.values(this.alarms),
    });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${this.dashboard.dashboard.dashboardName}`,
      description: 'The delivery health dashboard',
    }).overrideLogicalId('DashboardUrl');
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Where alarms notify' }).overrideLogicalId(
      'AlarmTopicArn',
    );
  }

  /**
   * The calls that could open the secrets key to someone else or make every secret unreadable (or let someone else
   * sign audit digests, on the signing key), sent to the alarm
   * topic as they happen. They arrive as CloudTrail management events through EventBridge, which needs a trail that
   * records management events in this region (docs/operations.md). The key is matched on what the caller passed,
   * `requestParameters.keyId`: these three calls take the key id or the key ARN (not an alias), so both are listed.
   * The SnsTopic target adds the topic-policy statement that lets events.amazonaws.com publish.
   */
  private reportKeyChanges(keys: readonly IKey[]): void {
    new Rule(this, 'KeyPolicyChangeRule', {
      description: 'Reports PutKeyPolicy, DisableKey and ScheduleKeyDeletion on the secrets key and the audit signing key',
      eventPattern: {
        source: ['aws.kms'],
        detailType: ['AWS API Call via CloudTrail'],
        detail: {
          eventSource: ['kms.amazonaws.com'],
          eventName: [...WATCHED_KEY_CALLS],
          requestParameters: { keyId: keys.flatMap((key) => [key.keyId, key.keyArn]) },
        },
      },
      targets: [new SnsTopic(this.alarmTopic)],
    });
  }

  private addPipelineAlarms(delivery: WebhookDeliveryConstruct): void {
    const oneMinuteMax = { statistic: Stats.MAXIMUM, period: Duration.minutes(1) };
    this.addAlarm('delivery-dlq-not-empty', {
      metric: delivery.deadLetterQueue.metricApproximateNumberOfMessagesVisible(oneMinuteMax),
      threshold: 0,
      description: 'Delivery messages failed 5 receives and moved to the dead-letter queue.',
    });
    this.addAlarm('stream-failures-not-empty', {
      metric: delivery.streamFailureQueue.metricApproximateNumberOfMessagesVisible(oneMinuteMax),
      threshold: 0,
      description: 'The fan-out gave up on stream records after its retries: their webhook events were not queued.',
    });
    this.addAlarm('delivery-queue-oldest-message-age', {
      metric: delivery.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
      threshold: ALARM_THRESHOLDS.queueOldestMessageAgeSeconds,
      evaluationPeriods: 2,
      description: `A delivery message has waited over ${ALARM_THRESHOLDS.queueOldestMessageAgeSeconds / 60} minutes for 10 minutes: the worker is not keeping up or not consuming.`,
    });
    this.addAlarm('fanout-iterator-age', {
      metric: delivery.functions['webhook-fanout'].function.metric('IteratorAge', {
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
      }),
      threshold: ALARM_THRESHOLDS.fanoutIteratorAgeMs,
      description: `Stream records reach the fan-out over ${ALARM_THRESHOLDS.fanoutIteratorAgeMs / 60_000} minutes late: it is failing or throttled.`,
    });
  }

  /** A sync that became failing (the worker's `SyncsFailing`), and a push the worker could not run 5 times (the sync DLQ). */
  private addSyncAlarms(syncs: SyncsConstruct): void {
    this.addAlarm('syncs-failing', {
      metric: syncsFailing(),
      threshold: ALARM_THRESHOLDS.syncsFailingPerFiveMinutes,
      // At or above: one sync that became failing is one too many (`>` 1 would wait for a second).
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'A sync has failed to push for 24 hours (audited sync.update, event service.sync.failed): its destination holds old values.',
    });
    this.addAlarm('sync-dlq-not-empty', {
      metric: syncs.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) }),
      // Above 0, as the other dead-letter queues: a single push there is an alarm.
      threshold: 0,
      description: 'Sync pushes could not run 5 times (the table or the queue failing) and moved to the dead-letter queue.',
    });
  }

  /**
   * A digest missed: a run that errored (the function's Errors) or logged a failed workspace (`digestRunsFailed`),
   * summed over the hour; and a run that never came: no invocation in 2 hours, where no data is the alarm itself.
   */
  private addDigestAlarms(digests: AuditDigestsConstruct): void {
    const hour = Duration.hours(1);
    this.addAlarm('audit-digest-missed', {
      metric: new MathExpression({
        expression: 'FILL(errors, 0) + FILL(failed, 0)',
        usingMetrics: {
          errors: digests.digester.function.metricErrors({ statistic: Stats.SUM, period: hour }),
          failed: digestRunsFailed(this, digests.digester.logGroup, hour),
        },
        label: 'Digester runs failed',
        period: hour,
      }),
      threshold: ALARM_THRESHOLDS.digestFailuresPerHour,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: "The audit digester failed, or could not digest a workspace, in the last hour: that workspace's digest is missing.",
    });
    this.addAlarm('audit-digester-not-running', {
      metric: digests.digester.function.metricInvocations({
        statistic: Stats.SUM,
        period: Duration.hours(ALARM_THRESHOLDS.digesterSilentHours),
      }),
      threshold: 1,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      missingData: TreatMissingData.BREACHING,
      description: `The audit digester has not run for ${ALARM_THRESHOLDS.digesterSilentHours} hours: no digest is being made.`,
    });
  }

  /**
   * A failed rotation (the runner's `RotationFailures`, every step summed), and a rotation step the runner could not
   * run 3 times (the rotation dead-letter queue), which leaves the secret's lease to run out instead of ending it.
   */
  private addRotationAlarms(rotation: SecretRotationConstruct): void {
    this.addAlarm('rotation-failures', {
      metric: rotationFailures(),
      threshold: ALARM_THRESHOLDS.rotationFailuresPerFiveMinutes,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: 'A secret rotation failed in the last 5 minutes: AWSCURRENT stayed where it was (audited secret.rotation_failed).',
    });
    this.addAlarm('rotation-dlq-not-empty', {
      metric: rotation.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) }),
      threshold: 0,
      description: 'Rotation steps failed 3 receives and moved to the dead-letter queue: their rotations did not finish.',
    });
  }

  private addAlarm(name: string, options: AlarmSpec): void {
    const alarm = new Alarm(this, `${pascalCase(name)}Alarm`, {
      alarmName: `${Stack.of(this).stackName}-${name}`,
      alarmDescription: `${options.description} See docs/operations.md, "Alarms".`,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      // No data is no trouble (idle queues and functions publish nothing), unless the alarm says otherwise.
      treatMissingData: options.missingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    alarm.addOkAction(new SnsAction(this.alarmTopic));
    this.alarms[name] = alarm;
  }
}
