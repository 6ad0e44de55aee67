import { CreateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { assertScheduleName, type OneTimeScheduler } from './one-time-scheduler.ts';
import { translateAwsError } from './transient-failures.ts';

/**
 * The `at(yyyy-mm-ddThh:mm:ss)` expression, in UTC, for an instant. Milliseconds are rounded up to the next second
 * so a schedule never fires before `at`; the host's time zone plays no part (`toISOString` is always UTC).
 */
export function atExpression(at: number): string {
  if (!Number.isFinite(at)) throw new Error('Invalid schedule time: not a finite number of milliseconds');
  const second = Math.ceil(at / 1000) * 1000;
  return `at(${new Date(second).toISOString().slice(0, 19)})`;
}

/** Where the schedules live and what they target. */
export interface EventBridgeSchedulerOptions {
  client: SchedulerClient;
  /** The schedule group holding delivery retries (its own group keeps them apart and countable). */
  groupName: string;
  /** The delivery queue every schedule sends to. */
  queueArn: string;
  /** The role EventBridge Scheduler assumes to call `sqs:SendMessage` on that queue. */
  roleArn: string;
}

/**
 * EventBridge Scheduler as a `OneTimeScheduler`: one `at()` schedule per name, in UTC, with no flexible window,
 * deleting itself after it has sent the message. A name that exists already was scheduled by an earlier call (a
 * retried Lambda, a redelivered message), so a ConflictException resolves as success.
 */
export function makeEventBridgeScheduler(options: EventBridgeSchedulerOptions): OneTimeScheduler {
  return {
    async schedule({ name, at, messageBody }) {
      assertScheduleName(name);
      const command = new CreateScheduleCommand({
        Name: name,
        GroupName: options.groupName,
        ScheduleExpression: atExpression(at),
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: options.queueArn, RoleArn: options.roleArn, Input: messageBody },
        ActionAfterCompletion: 'DELETE',
      });
      try {
        await options.client.send(command);
      } catch (error) {
        if ((error as { name?: string } | null)?.name === 'ConflictException') return;
        translateAwsError(error, 'EventBridge Scheduler');
      }
    },
  };
}
