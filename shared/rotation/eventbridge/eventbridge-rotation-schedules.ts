import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { makeSchedulerClient } from '../../platform/clients/scheduler.ts';
import { scheduleNameOf, type RotationSchedules } from '../rotation-records.ts';

/**
 * EventBridge Scheduler as the rotation schedules: a configuration updates the secret's schedule, or creates it when
 * there is none (so a retried configuration is harmless); turning rotation off deletes it (one already gone is fine).
 */
export function eventBridgeRotationSchedules(target: {
  queueArn: string;
  groupName: string;
  roleArn: string;
  endpoint: string | undefined;
}): RotationSchedules {
  const client = makeSchedulerClient({ endpoint: target.endpoint });
  const named = (error: unknown, name: string) => (error as { name?: string } | null)?.name === name;
  return {
    async put(workspaceId, secretId, expression, duration) {
      const hours = duration ? Number(duration.slice(0, -1)) : 0;
      const input: CreateScheduleCommandInput = {
        Name: scheduleNameOf(secretId),
        GroupName: target.groupName,
        ScheduleExpression: expression,
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: hours > 0 ? { Mode: 'FLEXIBLE', MaximumWindowInMinutes: hours * 60 } : { Mode: 'OFF' },
        Target: {
          Arn: target.queueArn,
          RoleArn: target.roleArn,
          Input: JSON.stringify({ workspaceId, secretId, step: 'start' }),
        },
        State: 'ENABLED',
      };
      try {
        await client.send(new UpdateScheduleCommand(input));
      } catch (error) {
        if (!named(error, 'ResourceNotFoundException')) throw error;
        await client.send(new CreateScheduleCommand(input));
      }
    },
    async remove(secretId) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: scheduleNameOf(secretId), GroupName: target.groupName }));
      } catch (error) {
        if (!named(error, 'ResourceNotFoundException')) throw error;
      }
    },
  };
}
