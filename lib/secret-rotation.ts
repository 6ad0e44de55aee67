import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ROTATION_FUNCTION, ROTATION_QUEUE } from '../shared/platform/functions.ts';
import { iamPatternOf } from '../shared/platform/rotation-function-arns.ts';
import { ROTATION_ACCESS } from './rotation-access.ts';
import { applyAccess } from './apply-access.ts';
import { acknowledgeWildcardResource } from './nag.ts';
import { ServiceFunction } from './service-function.ts';
import { schedulerSendRole } from './scheduler-role.ts';
import { queueWithDeadLetter } from './worker-queue.ts';

/**
 * A Lambda function ARN pattern as `rotationFunctionArns` takes it: `arn:<partition>:lambda:<region>:<account>:function:
 * <name>[:<qualifier>]`, with `*` and `?` allowed inside the region, the account, the name and the qualifier (IAM's
 * wildcards, which the runner's own matcher, shared/platform/glob.ts, reads the same way on ARNs). No comma or space:
 * the list reaches the runner comma-joined.
 */
const FUNCTION_ARN_PATTERN =
  /^arn:aws(?:-[a-z]+)*:lambda:[a-z0-9*?-]{1,32}:[0-9*?]{1,12}:function:[A-Za-z0-9_*?-]{1,140}(?::[A-Za-z0-9_$*?-]{1,128})?$/;

/**
 * Checks the context `rotationFunctionArns` (decisions.md v1.3, "Where functions run"; v1.4: `${workspaceId}` stands
 * for the caller's workspace): every pattern, with `${workspaceId}` as IAM will hold it (`*`), names Lambda functions
 * by ARN, so the runner's `lambda:InvokeFunction` grant names functions and nothing else; `*` alone (any function of
 * any account) is refused outright, and so is a misspelt placeholder (its `$`, `{` and `}` are no ARN's). Throws naming
 * the first bad pattern; answers the list as given (the runner substitutes the workspace itself).
 */
export function checkRotationFunctionArns(patterns: readonly string[]): readonly string[] {
  for (const pattern of patterns) {
    const granted = iamPatternOf(pattern);
    if (/^[*?]+$/.test(granted.trim())) {
      throw new Error(`rotationFunctionArns: "${pattern}" would let the runner invoke any function; list the rotation functions' ARNs`);
    }
    if (!FUNCTION_ARN_PATTERN.test(granted)) {
      throw new Error(
        `rotationFunctionArns: "${pattern.slice(0, 200)}" is not a Lambda function ARN pattern ` +
          '(arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>], * and ? allowed in region, account, name and qualifier, ' +
          "and ${workspaceId} for the caller's workspace)",
      );
    }
  }
  return patterns;
}

export interface SecretRotationConstructProps {
  /** Names the schedule group `<stage>-rotations`. */
  readonly stage: string;
  readonly table: ITable;
  readonly key: IKey;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** The context `rotationFunctionArns`: the only functions the runner may invoke. @default none (rotations without a function only) */
  readonly functionArns?: readonly string[] | undefined;
}

/**
 * Rotation (decisions.md v1.3, "Rotation"): the rotation queue, one message per step of a rotation, and the runner
 * that consumes it one message at a time (functions/rotation/handler.ts), queues each next step on the same queue,
 * and invokes only the rotation functions `functionArns` lists. A step that fails 3 receives goes to the dead-letter
 * queue; the lease's end (6 minutes a step) then frees the secret for another rotation. Scheduled rotations: the runner
 * alone keeps one EventBridge Scheduler schedule per rotated secret in the stage's rotation group, which sends a start
 * to the queue as the scheduler role (the API functions ask the runner through the queue: shared/rotation/rotation-lease.ts).
 */
export class SecretRotationConstruct extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly runner: ServiceFunction;
  /** The group of the rotation schedules, `rotate-<secretId>` each. */
  readonly scheduleGroup: ScheduleGroup;
  /** The role EventBridge Scheduler assumes to send a scheduled start to the rotation queue. */
  readonly schedulerRole: Role;
  /** The context `rotationFunctionArns`, checked. */
  readonly functionArns: readonly string[];

  constructor(scope: Construct, id: string, props: SecretRotationConstructProps) {
    super(scope, id);
    this.functionArns = checkRotationFunctionArns(props.functionArns ?? []);
    // Messages carry ids, the step and the rotation's token (the new version's VersionId, never a value): SQS-managed
    // encryption suffices, as for the delivery queue. Four days: a backlog behind the runner's concurrency drains.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = queueWithDeadLetter(this, ROTATION_QUEUE));
    this.runner = new ServiceFunction(this, 'RotationFunction', {
      entry: ROTATION_FUNCTION.entry,
      timeout: Duration.seconds(ROTATION_FUNCTION.timeoutSeconds),
      memorySize: ROTATION_FUNCTION.memoryMb,
      // The rotation event's SecretId is the secret's ARN as the AWS API answers it: the same account.
      environment: { AWS_ACCOUNT_ID: Stack.of(this).account },
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    applyAccess(this.runner, ROTATION_ACCESS, { table: props.table, key: props.key, rotations: this });
    this.runner.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: ROTATION_FUNCTION.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: ROTATION_FUNCTION.maxConcurrency,
      }),
    );
    // Deleting the group deletes its schedules: each comes back when its rotation is configured again.
    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', {
      scheduleGroupName: `${props.stage}-rotations`,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.schedulerRole = schedulerSendRole(this, {
      description: 'Assumed by EventBridge Scheduler to send scheduled rotation starts to the rotation queue',
      group: this.scheduleGroup,
      queue: this.queue,
    });
    this.allowScheduling();
    this.allowInvoking();
    this.addOutputs();
  }

  /**
   * Lets `fn` queue rotation steps (sqs:SendMessage on the rotation queue) and tells it the queue's URL
   * (`ROTATION_QUEUE_URL`) and the rotation functions the stack may invoke (`ROTATION_FUNCTION_ARNS`, comma-joined,
   * unset when none): the functions that start rotations also configure them, and refuse a function outside the list
   * then (shared/rotation/rotation-functions.ts); the runner refuses it again before each invocation.
   */
  bindSender(fn: ServiceFunction): void {
    fn.function.addEnvironment('ROTATION_QUEUE_URL', this.queue.queueUrl);
    if (this.functionArns.length > 0) fn.function.addEnvironment('ROTATION_FUNCTION_ARNS', this.functionArns.join(','));
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /**
   * The runner keeps the schedules (shared/rotation/eventbridge/eventbridge-rotation-schedules.ts): it updates a secret's schedule
   * or creates it, and deletes it when rotation is off or the secret is gone, only `rotate-*` in the rotation group,
   * passing the scheduler role to Scheduler alone. Without these three settings it keeps none.
   */
  private allowScheduling(): void {
    const fn = this.runner.function;
    fn.addEnvironment('ROTATION_QUEUE_ARN', this.queue.queueArn);
    fn.addEnvironment('ROTATION_SCHEDULE_GROUP', this.scheduleGroup.scheduleGroupName);
    fn.addEnvironment('ROTATION_SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    const schedules = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/rotate-*`,
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [schedules],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    acknowledgeWildcardResource(
      this.runner.role,
      schedules,
      "The wildcard is the secret id of each rotated secret's schedule (rotate-<secretId>), inside this stage's own rotation schedule group.",
    );
  }

  /**
   * `lambda:InvokeFunction` for the runner on exactly the listed patterns, `${workspaceId}` as `*` (IAM cannot know the
   * caller's workspace: the runner narrows it to the workspace before each invocation). None listed: no grant at all.
   */
  private allowInvoking(): void {
    const functionArns = this.functionArns.map(iamPatternOf);
    if (functionArns.length === 0) return;
    this.runner.function.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [...functionArns] }));
    // cdk-nag's AwsSolutions-IAM5 finds the `*` of a resource (a `?` is no finding).
    for (const arn of functionArns.filter((pattern) => pattern.includes('*'))) {
      acknowledgeWildcardResource(
        this.runner.role,
        arn,
        'The operator listed this pattern in the context rotationFunctionArns: the rotation functions the runner may invoke.',
      );
    }
  }

  /** What the runbook in docs/operations.md needs to inspect or redrive the queues and read the runner's log. */
  private addOutputs(): void {
    const outputs: Record<string, [string, string]> = {
      RotationQueueUrl: [this.queue.queueUrl, 'Rotation queue: one message per step of a rotation'],
      RotationDeadLetterQueueUrl: [this.deadLetterQueue.queueUrl, 'Rotation steps that failed 3 receives'],
      RotationDeadLetterQueueArn: [this.deadLetterQueue.queueArn, 'Source ARN for a redrive (start-message-move-task)'],
      RotationFunctionName: [this.runner.function.functionName, 'Rotation runner'],
      RotationScheduleGroupName: [this.scheduleGroup.scheduleGroupName, 'EventBridge Scheduler group of the rotation schedules'],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description }).overrideLogicalId(name);
    }
  }
}
