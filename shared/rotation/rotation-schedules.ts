import type { Config } from '../platform/config.ts';
import type { RotationSchedules } from './rotation-records.ts';

export type { RotationSchedules } from './rotation-records.ts';

/**
 * Scheduled rotations (decisions.md v1.3, "Rotation"): one recurring EventBridge Scheduler schedule per rotated
 * secret (`rate(…)` or `cron(…)`, in UTC, with a flexible window of the rotation's `Duration`), sending a start to the
 * rotation queue, whose runner starts the rotation if it is still on. The Scheduler client loads with the first
 * configuration a container makes (eventbridge/eventbridge-rotation-schedules.ts). Undefined when schedules are not configured.
 */
export function rotationSchedulesOf(config: Pick<Config, 'rotation' | 'webhooks'>): RotationSchedules | undefined {
  const { queueArn, scheduleGroup, schedulerRoleArn } = config.rotation ?? {};
  if (!queueArn || !scheduleGroup || !schedulerRoleArn) return undefined;
  const target = { queueArn, groupName: scheduleGroup, roleArn: schedulerRoleArn, endpoint: config.webhooks.schedulerEndpoint };
  let loaded: Promise<RotationSchedules> | undefined;
  const load = () =>
    (loaded ??= import('./eventbridge/eventbridge-rotation-schedules.ts')
      .then((module) => module.eventBridgeRotationSchedules(target))
      .catch((error: unknown) => {
        loaded = undefined;
        throw error;
      }));
  return {
    put: async (...args) => (await load()).put(...args),
    remove: async (...args) => (await load()).remove(...args),
  };
}
