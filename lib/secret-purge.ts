import { CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SECRET_PURGER_FUNCTION as PURGER } from '../shared/platform/functions.ts';
import { SECRET_PURGER_ACCESS } from './purge-access.ts';
import { applyAccess } from './apply-access.ts';
import { ServiceFunction } from './service-function.ts';

export interface SecretPurgeConstructProps {
  readonly table: ITable;
  readonly key: IKey;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The end of recovery windows (decisions.md, "Recoverable deletes"): the purger (functions/secret-purger), run by an
 * EventBridge rule every 5 minutes, deletes what is left of the deleted secrets whose window ended. Secrets' own
 * function and schedule, so that nothing of the webhook pipeline (its sweeper, its grace period) decides when a
 * secret goes.
 */
export class SecretPurgeConstruct extends Construct {
  readonly purger: ServiceFunction;

  constructor(scope: Construct, id: string, props: SecretPurgeConstructProps) {
    super(scope, id);
    this.purger = new ServiceFunction(this, 'PurgerFunction', {
      entry: PURGER.entry,
      timeout: Duration.seconds(PURGER.timeoutSeconds),
      memorySize: PURGER.memoryMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    applyAccess(this.purger, SECRET_PURGER_ACCESS, { table: props.table, key: props.key });
    // A failed run is not retried: the next one comes within minutes and finds the same purges (their records stay).
    this.purger.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(5) });
    new Rule(this, 'PurgeSchedule', {
      description: 'Purges deleted secrets whose recovery window has ended',
      schedule: Schedule.rate(Duration.minutes(PURGER.intervalMinutes)),
      targets: [new LambdaFunction(this.purger.function, { retryAttempts: 2, maxEventAge: Duration.minutes(5) })],
    });
    new CfnOutput(this, 'PurgerFunctionName', {
      value: this.purger.function.functionName,
      description: 'Secret purger (deleted secrets past their recovery window)',
    }).overrideLogicalId('PurgerFunctionName');
  }
}
