import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { schedulerSendRole } from './scheduler-role.ts';
import { ENTITY } from '../shared/platform/store/keys.ts';
import { DELIVERY_QUEUE, PIPELINE_FUNCTIONS, type PipelineFunction } from '../shared/platform/functions.ts';
import { PIPELINE_ACCESS } from './access.ts';
import { applyAccess, type QueueSender } from './apply-access.ts';
import { acknowledgeWildcardResource } from './nag.ts';
import { pascalCase, ServiceFunction } from './service-function.ts';
import { queueWithDeadLetter } from './worker-queue.ts';

const { 'webhook-fanout': FANOUT, 'delivery-worker': WORKER, 'delivery-sweeper': SWEEPER } = PIPELINE_FUNCTIONS;

export interface WebhookDeliveryConstructProps {
  readonly stage: string;
  readonly table: ITable;
  readonly key: IKey;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** The sync queue, which the fan-out queues pushes on (decisions.md v1.4, "Syncs"). */
  readonly syncs: QueueSender;
  /** The audit stream queue, which the fan-out queues new audit entries on (decisions.md v1.4, "Audit streams"). */
  readonly auditStreams: QueueSender;
}

/**
 * The webhook pipeline: the table's stream feeds the fan-out, which queues one message per delivery on SQS; the
 * worker attempts each and queues the next attempt with SQS DelaySeconds (short waits) or an EventBridge Scheduler
 * one-time schedule (long waits) that sends to the same queue; the sweeper re-queues what got lost in between.
 */
export class WebhookDeliveryConstruct extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Where the stream event source puts the batches that failed after every retry (their shard and sequence range). */
  readonly streamFailureQueue: Queue;
  readonly scheduleGroup: ScheduleGroup;
  /** The role EventBridge Scheduler assumes to send a scheduled attempt to the queue. */
  readonly schedulerRole: Role;
  readonly functions: Record<PipelineFunction, ServiceFunction>;

  constructor(scope: Construct, id: string, props: WebhookDeliveryConstructProps) {
    super(scope, id);
    // Messages carry ids and an attempt token only (never a payload or a secret): SQS-managed encryption suffices.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = queueWithDeadLetter(this, DELIVERY_QUEUE));
    this.streamFailureQueue = new Queue(this, 'StreamFailureQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter destination of the fan-out stream event source; nothing consumes it but an operator.',
    });
    // Deleting the group deletes its pending schedules; the sweeper re-queues their deliveries from the table.
    this.scheduleGroup = new ScheduleGroup(this, 'RetryScheduleGroup', {
      scheduleGroupName: `${props.stage}-webhook-retries`,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.schedulerRole = schedulerSendRole(this, {
      description: 'Assumed by EventBridge Scheduler to send scheduled webhook attempts to the delivery queue',
      group: this.scheduleGroup,
      queue: this.queue,
    });

    const names = Object.keys(PIPELINE_FUNCTIONS) as PipelineFunction[];
    const functions = Object.fromEntries(names.map((name) => [name, this.addFunction(name, props)])) as Record<
      PipelineFunction,
      ServiceFunction
    >;
    this.functions = functions;
    this.connectFanout(functions['webhook-fanout'], props.table);
    this.connectWorker(functions['delivery-worker']);
    this.connectSweeper(functions['delivery-sweeper']);
    this.addOutputs();
  }

  /**
   * Lets `fn` queue delivery attempts for now or up to 15 minutes later (sqs:SendMessage on the delivery queue) and
   * tells it the queue's URL (`DELIVERY_QUEUE_URL`).
   */
  bindSender(fn: ServiceFunction): void {
    fn.function.addEnvironment('DELIVERY_QUEUE_URL', this.queue.queueUrl);
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** What the runbook in docs/operations.md needs to inspect, purge or redrive the queues. */
  private addOutputs(): void {
    const outputs: Record<string, [string, string]> = {
      DeliveryQueueUrl: [this.queue.queueUrl, 'Webhook delivery queue'],
      DeliveryDeadLetterQueueUrl: [this.deadLetterQueue.queueUrl, 'Delivery messages that failed 5 receives'],
      DeliveryDeadLetterQueueArn: [this.deadLetterQueue.queueArn, 'Source ARN for a redrive (start-message-move-task)'],
      StreamFailureQueueUrl: [this.streamFailureQueue.queueUrl, 'Stream batches the fan-out gave up on'],
      RetryScheduleGroupName: [this.scheduleGroup.scheduleGroupName, 'EventBridge Scheduler group of pending retries'],
      FanoutFunctionName: [this.functions['webhook-fanout'].function.functionName, 'Stream fan-out (replays are invoked on it)'],
      WorkerFunctionName: [this.functions['delivery-worker'].function.functionName, 'Delivery worker'],
      SweeperFunctionName: [this.functions['delivery-sweeper'].function.functionName, 'Delivery sweeper'],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description }).overrideLogicalId(name);
    }
  }

  private addFunction(name: PipelineFunction, props: WebhookDeliveryConstructProps): ServiceFunction {
    const settings = PIPELINE_FUNCTIONS[name];
    const fn = new ServiceFunction(this, `${pascalCase(name)}Function`, {
      entry: settings.entry,
      timeout: Duration.seconds(settings.timeoutSeconds),
      memorySize: settings.memoryMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    const { table, key, syncs, auditStreams } = props;
    applyAccess(fn, PIPELINE_ACCESS[name], { table, key, deliveries: this, syncs, auditStreams });
    return fn;
  }

  /**
   * The stream, filtered to what the fan-out acts on (audit entries being inserted: shared/webhooks/deliveries/fanout.ts
   * `insertedAudit`; audit entries being changed or removed: `auditChangeOf`), so the many other writes invoke
   * nothing (the table's NEW_AND_OLD_IMAGES view gives the old image a change needs). A failing record is retried
   * from itself (ReportBatchItemFailures), the batch is halved around it, and after the retries its position goes to
   * the failure queue.
   */
  private connectFanout(fn: ServiceFunction, table: ITable): void {
    fn.function.addEventSource(
      new DynamoEventSource(table, {
        // The fan-out is idempotent (conditional puts), so reading from the oldest record loses nothing and doubles nothing.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: FANOUT.batchSize,
        bisectBatchOnError: true,
        retryAttempts: FANOUT.retryAttempts,
        maxRecordAge: Duration.hours(FANOUT.maxRecordAgeHours),
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.streamFailureQueue),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.isEqual(ENTITY.audit) } } },
          }),
          // An audit entry changed or removed: never the service's doing, reported by the fan-out (`auditChangeOf`).
          FilterCriteria.filter({
            eventName: FilterRule.or('MODIFY', 'REMOVE'),
            dynamodb: { OldImage: { type: { S: FilterRule.isEqual(ENTITY.audit) } } },
          }),
        ],
      }),
    );
    // The event source grant includes dynamodb:ListStreams, which has no resource type: IAM requires "*" for it.
    Validations.of(fn.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only dynamodb:ListStreams (granted with the stream event source) is on "*": the action has no resource-level permissions.',
    });
  }

  /**
   * The worker consumes the queue with partial batch responses, and schedules long waits with Scheduler: one-time
   * schedules in this stage's group that send to the queue as the scheduler role (shared/webhooks/deliveries/scheduling-queue.ts).
   */
  private connectWorker(fn: ServiceFunction): void {
    fn.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: WORKER.batchSize, reportBatchItemFailures: true, maxConcurrency: WORKER.maxConcurrency }),
    );
    fn.function.addEnvironment('DELIVERY_QUEUE_ARN', this.queue.queueArn);
    fn.function.addEnvironment('SCHEDULER_GROUP', this.scheduleGroup.scheduleGroupName);
    fn.function.addEnvironment('SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    const schedules = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    });
    // Schedules delete themselves after they ran (ActionAfterCompletion DELETE), so no DeleteSchedule.
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['scheduler:CreateSchedule'], resources: [schedules] }));
    fn.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    acknowledgeWildcardResource(
      fn.role,
      schedules,
      "The wildcard is the schedule name, one per retry (<deliveryId>-<token>), inside this stage's own schedule group.",
    );
  }

  /** Every 5 minutes; a failed run is not retried, since the next one comes soon and does the same. */
  private connectSweeper(fn: ServiceFunction): void {
    fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(5) });
    new Rule(this, 'SweepSchedule', {
      description: 'Re-queues pending webhook deliveries whose message was lost',
      schedule: Schedule.rate(Duration.minutes(SWEEPER.intervalMinutes)),
      targets: [new LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge: Duration.minutes(5) })],
    });
  }
}
