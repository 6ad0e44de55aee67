import { instrument } from './instrumentation.ts';
import { SchedulerClient } from '@aws-sdk/client-scheduler';

/**
 * The EventBridge Scheduler client of a container, created once at module scope (never per request). `endpoint` is
 * set only by the local stack, whose stand-in (`bin/local/scheduler-api.ts`) accepts any credentials.
 */
export function makeSchedulerClient(options: { endpoint?: string | undefined; region?: string } = {}): SchedulerClient {
  return instrument(new SchedulerClient({
    ...(options.endpoint
      ? { endpoint: options.endpoint, region: options.region ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : options.region
        ? { region: options.region }
        : {}),
    maxAttempts: 3,
  }), 'Scheduler');
}
