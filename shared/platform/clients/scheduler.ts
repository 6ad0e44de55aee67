import { announceClient } from './hooks.ts';
import { clientOptions, type ClientTarget } from './options.ts';
import { SchedulerClient } from '@aws-sdk/client-scheduler';

/**
 * The EventBridge Scheduler client of a container, created once at module scope (never per request). `endpoint` is
 * set only by the local stack, whose stand-in (`bin/local/scheduler-api.ts`) accepts any credentials.
 */
export function makeSchedulerClient(options: ClientTarget = {}): SchedulerClient {
  return announceClient(
    new SchedulerClient({
      ...clientOptions(options),
      maxAttempts: 3,
    }),
    'Scheduler',
  );
}
