import { ArnFormat, CfnOutput, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SYNC_QUEUE, SYNC_WORKER_FUNCTION } from '../shared/platform/functions.ts';
import { applyAccess } from './apply-access.ts';
import { acknowledgeWildcardResource } from './nag.ts';
import { ServiceFunction } from './service-function.ts';
import { SYNC_WORKER_ACCESS } from './sync-access.ts';
import { queueWithDeadLetter } from './worker-queue.ts';

/** An IAM role ARN pattern as `syncRoleArns` takes it (`*` and `?` inside account and name; `${workspaceId}` allowed). */
const ROLE_ARN_PATTERN = /^arn:aws(?:-[a-z]+)*:iam::[0-9*?]{1,12}:role\/[A-Za-z0-9+=,.@_\-/*?]{1,512}$/;

/**
 * Checks the context `syncRoleArns` (decisions.md v1.4, "Syncs"): every pattern, `${workspaceId}` as IAM holds it
 * (`*`), names IAM roles by ARN, so the worker's `sts:AssumeRole` grant names roles and nothing else; `*` alone is
 * refused. Throws naming the first bad pattern.
 */
export function checkSyncRoleArns(patterns: readonly string[]): readonly string[] {
  for (const pattern of patterns) {
    const granted = iamPatternOfRole(pattern);
    if (/^[*?]+$/.test(granted.trim()) || !ROLE_ARN_PATTERN.test(granted)) {
      throw new Error(
        `syncRoleArns: "${pattern.slice(0, 200)}" is not an IAM role ARN pattern (arn:aws:iam::<account>:role/<name>, * and ? allowed, and \${workspaceId})`,
      );
    }
  }
  return patterns;
}

/** A pattern as IAM holds it: `${workspaceId}` as `*` (the worker narrows it to the sync's workspace before assuming). */
const iamPatternOfRole = (pattern: string) => pattern.replaceAll('${workspaceId}', '*');

export interface SyncsConstructProps {
  readonly table: ITable;
  readonly key: IKey;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** The context `syncRoleArns`: the only roles a sync may assume. @default none */
  readonly roleArns?: readonly string[] | undefined;
  /** The context `syncOwnAccount`: syncs without `roleArn` write into this account. @default false */
  readonly ownAccount?: boolean | undefined;
  /** The stack's reveal limit per credential and minute: a push's reveals count as any reveal. @default the functions' own (120) */
  readonly revealsPerMinute?: number | undefined;
  /** The stack's reveal ceiling per workspace and minute, shared with the API's reveals. @default 10 times the above */
  readonly workspaceRevealsPerMinute?: number | undefined;
}

/**
 * Syncs (decisions.md v1.4, "Syncs"): the sync queue, one message per push of one sync, and the worker that consumes
 * it (functions/sync-worker/handler.ts), queueing its own retries on the same queue (in hops of at most 15 minutes:
 * no scheduler). A message that cannot be run 5 times goes to the dead-letter queue. The worker may assume only the
 * roles `roleArns` lists, and write Parameter Store parameters and Secrets Manager secrets of this account only with
 * `ownAccount`.
 */
export class SyncsConstruct extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly roleArns: readonly string[];

  constructor(scope: Construct, id: string, props: SyncsConstructProps) {
    super(scope, id);
    this.roleArns = checkSyncRoleArns(props.roleArns ?? []);
    // Messages carry ids and key names, never a value: SQS-managed encryption suffices, as for the other queues.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = queueWithDeadLetter(this, SYNC_QUEUE));
    this.worker = new ServiceFunction(this, 'SyncWorkerFunction', {
      entry: SYNC_WORKER_FUNCTION.entry,
      timeout: Duration.seconds(SYNC_WORKER_FUNCTION.timeoutSeconds),
      memorySize: SYNC_WORKER_FUNCTION.memoryMb,
      environment: {
        ...(this.roleArns.length > 0 && { SYNC_ROLE_ARNS: this.roleArns.join(',') }),
        SYNC_OWN_ACCOUNT: props.ownAccount ? 'true' : 'false',
        // The same limits as the API's reveals: the workspace's counter is one, whoever counts on it.
        ...(props.revealsPerMinute !== undefined && { REVEAL_RATE_LIMIT_PER_MINUTE: String(props.revealsPerMinute) }),
        ...(props.workspaceRevealsPerMinute !== undefined && {
          REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: String(props.workspaceRevealsPerMinute),
        }),
      },
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    applyAccess(this.worker, SYNC_WORKER_ACCESS, { table: props.table, key: props.key, syncs: this });
    this.worker.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: SYNC_WORKER_FUNCTION.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: SYNC_WORKER_FUNCTION.maxConcurrency,
      }),
    );
    this.allowAssuming();
    if (props.ownAccount) this.allowOwnAccount();
    this.addOutputs();
  }

  /** Lets `fn` queue sync pushes (sqs:SendMessage on the sync queue) and tells it the queue's URL (`SYNC_QUEUE_URL`). */
  bindSender(fn: ServiceFunction): void {
    fn.function.addEnvironment('SYNC_QUEUE_URL', this.queue.queueUrl);
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** `sts:AssumeRole` on exactly the listed patterns (`${workspaceId}` as `*`); none listed: no grant at all. */
  private allowAssuming(): void {
    const roles = this.roleArns.map(iamPatternOfRole);
    if (roles.length === 0) return;
    this.worker.function.addToRolePolicy(new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [...roles] }));
    for (const arn of roles.filter((pattern) => pattern.includes('*'))) {
      acknowledgeWildcardResource(
        this.worker.role,
        arn,
        'The operator listed this pattern in the context syncRoleArns: the roles syncs may assume.',
      );
    }
  }

  /**
   * With `syncOwnAccount`: Parameter Store parameters and Secrets Manager secrets of this account (any name: a sync's
   * prefix is the admin's choice), and a customer key of this account used through those two services only. Only the
   * writes the destinations make: never `GetSecretValue` (the one read, a `json` secret's `remove`, is never called:
   * the worker pushes a `json` secret whole and prunes nothing from it), which on `secret:*` would read every secret
   * of the account.
   */
  private allowOwnAccount(): void {
    const stack = Stack.of(this);
    const parameters = stack.formatArn({ service: 'ssm', region: '*', resource: 'parameter', resourceName: '*' });
    const secrets = stack.formatArn({
      service: 'secretsmanager',
      region: '*',
      resource: 'secret',
      resourceName: '*',
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const keys = stack.formatArn({ service: 'kms', region: '*', resource: 'key', resourceName: '*' });
    const fn = this.worker.function;
    fn.addToRolePolicy(new PolicyStatement({ actions: ['ssm:PutParameter', 'ssm:DeleteParameter'], resources: [parameters] }));
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'secretsmanager:CreateSecret',
          'secretsmanager:PutSecretValue',
          'secretsmanager:DeleteSecret',
          'secretsmanager:RestoreSecret',
        ],
        resources: [secrets],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['kms:GenerateDataKey', 'kms:Decrypt', 'kms:Encrypt'],
        resources: [keys],
        // kms:ViaService is single-valued: a plain StringLike (IAM's guidance; ForAnyValue is for multivalued keys).
        conditions: { StringLike: { 'kms:ViaService': ['ssm.*.amazonaws.com', 'secretsmanager.*.amazonaws.com'] } },
      }),
    );
    const why = 'The context syncOwnAccount lets syncs write parameters and secrets of this account under names their admins choose.';
    for (const arn of [parameters, secrets, keys]) acknowledgeWildcardResource(this.worker.role, arn, why);
  }

  /** What the runbook in docs/operations.md needs to inspect or redrive the queues and read the worker's log. */
  private addOutputs(): void {
    const outputs: Record<string, [string, string]> = {
      SyncQueueUrl: [this.queue.queueUrl, 'Sync queue: one message per push of one sync'],
      SyncDeadLetterQueueUrl: [this.deadLetterQueue.queueUrl, 'Sync pushes that could not run 5 times'],
      SyncDeadLetterQueueArn: [this.deadLetterQueue.queueArn, 'Source ARN for a redrive (start-message-move-task)'],
      SyncWorkerFunctionName: [this.worker.function.functionName, 'Sync worker'],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description }).overrideLogicalId(name);
    }
  }
}
