import { CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { ComparisonOperator, GraphWidget, type IMetric, type IWidget, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AUDIT_STREAM_QUEUE, AUDIT_STREAM_WORKER_FUNCTION } from '../shared/platform/functions.ts';
import { AUDIT_STREAM_DISABLED_METRIC, AUDIT_STREAM_FAILED_METRIC } from '../shared/platform/metrics-env.ts';
import { AUDIT_STREAM_WORKER_ACCESS } from './audit-stream-access.ts';
import { applyAccess } from './apply-access.ts';
import type { AlarmSpec } from './monitoring.ts';
import { ServiceFunction } from './service-function.ts';
import { countedMetric } from './service-metrics.ts';
import { queueWithDeadLetter } from './worker-queue.ts';

export interface AuditStreamsConstructProps {
  readonly table: ITable;
  readonly key: IKey;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/** Failed batches in an hour that page someone: a receiver down fails its first three attempts within 6 minutes. */
const FAILED_BATCHES_PER_HOUR = 3;

/**
 * Audit streams' delivery (decisions.md v1.4, "Audit streams and tamper evidence"): the audit stream queue, which the
 * stream fan-out fills with each workspace's new audit entries per active stream, and the worker that consumes it
 * (functions/audit-stream-worker/handler.ts), queueing its own retries on the same queue (hops of at most 15
 * minutes: no scheduler). A message that cannot be handled 5 times goes to the dead-letter queue.
 */
export class AuditStreamsConstruct extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;

  constructor(scope: Construct, id: string, props: AuditStreamsConstructProps) {
    super(scope, id);
    // Messages carry audit entries (ids, actions, key names: never a value or a credential), as the table's stream
    // does: SQS-managed encryption, as for the other queues. Four days cover the 3-day window and a hop after it.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = queueWithDeadLetter(this, AUDIT_STREAM_QUEUE));
    this.worker = new ServiceFunction(this, 'AuditStreamWorkerFunction', {
      entry: AUDIT_STREAM_WORKER_FUNCTION.entry,
      timeout: Duration.seconds(AUDIT_STREAM_WORKER_FUNCTION.timeoutSeconds),
      memorySize: AUDIT_STREAM_WORKER_FUNCTION.memoryMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    applyAccess(this.worker, AUDIT_STREAM_WORKER_ACCESS, { table: props.table, key: props.key, auditStreams: this });
    this.worker.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: AUDIT_STREAM_WORKER_FUNCTION.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: AUDIT_STREAM_WORKER_FUNCTION.maxConcurrency,
      }),
    );
    this.addOutputs();
  }

  /** Lets `fn` queue audit stream messages (sqs:SendMessage) and tells it the queue's URL (`AUDIT_STREAM_QUEUE_URL`). */
  bindSender(fn: ServiceFunction): void {
    fn.function.addEnvironment('AUDIT_STREAM_QUEUE_URL', this.queue.queueUrl);
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** The alarms of audit streams, for the monitoring construct's topic: failing receivers, disabled streams, the DLQ. */
  alarms(): Record<string, AlarmSpec> {
    return {
      'audit-streams-failing': {
        metric: countedMetric(AUDIT_STREAM_FAILED_METRIC, Duration.hours(1)),
        threshold: FAILED_BATCHES_PER_HOUR,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `Audit stream receivers refused or missed ${FAILED_BATCHES_PER_HOUR} batches or more in an hour: their entries are retried on the webhook schedule, and a stream failing for 3 days is disabled.`,
      },
      'audit-stream-disabled': {
        metric: countedMetric(AUDIT_STREAM_DISABLED_METRIC, Duration.minutes(5)),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description:
          'An audit stream failed for 3 days and was disabled (audited audit_stream.update): its SIEM misses entries until an admin enables it again.',
      },
      'audit-stream-dlq-not-empty': {
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) }),
        threshold: 0,
        description:
          'Audit stream messages could not be handled 5 times (the table, KMS or the queue failing) and moved to the dead-letter queue.',
      },
    };
  }

  /** The dashboard's audit streams row: what the three alarms watch, and the queue's backlog. */
  widgets(): IWidget[] {
    const max = { statistic: Stats.MAXIMUM, period: Duration.minutes(5) };
    const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 8, height: 6, leftYAxis: { min: 0 } });
    return [
      graph('Audit stream batches failed, streams disabled', [
        countedMetric(AUDIT_STREAM_FAILED_METRIC, Duration.minutes(5)).with({ label: 'Batches failed' }),
        countedMetric(AUDIT_STREAM_DISABLED_METRIC, Duration.minutes(5)).with({ label: 'Streams disabled' }),
      ]),
      graph('Audit stream queue and dead-letter queue', [
        this.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Visible' }),
        // Retries wait here: the worker queues them again on its own queue with a delay.
        this.queue.metric('ApproximateNumberOfMessagesDelayed', { ...max, label: 'Delayed' }),
        this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Audit stream DLQ' }),
      ]),
      graph('Age of the oldest audit stream message (s)', [this.queue.metricApproximateAgeOfOldestMessage({ ...max, label: 'Oldest' })]),
    ];
  }

  /** What the runbook in docs/operations.md needs to inspect or redrive the queues and read the worker's log. */
  private addOutputs(): void {
    const outputs: Record<string, [string, string]> = {
      AuditStreamQueueUrl: [this.queue.queueUrl, 'Audit stream queue: some entries of one workspace for one stream per message'],
      AuditStreamDeadLetterQueueUrl: [this.deadLetterQueue.queueUrl, 'Audit stream messages that could not be handled 5 times'],
      AuditStreamDeadLetterQueueArn: [this.deadLetterQueue.queueArn, 'Source ARN for a redrive (start-message-move-task)'],
      AuditStreamWorkerFunctionName: [this.worker.function.functionName, 'Audit stream worker'],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description }).overrideLogicalId(name);
    }
  }
}
