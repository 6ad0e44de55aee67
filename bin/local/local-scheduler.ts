import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { systemClock, type Clock } from '../../shared/platform/clock.ts';
import { logger } from '../../shared/platform/logger.ts';
import { assertScheduleName, type OneTimeScheduler, type ScheduleInput } from '../../shared/webhooks/index.ts';
import { describeError } from './sqs-poller.ts';
import { readVersionedRecord, writeJsonAtomic } from './json-file.ts';

/** What the schedules file holds: every schedule not yet fired, by name. */
interface SchedulesFile {
  version: 1;
  schedules: Record<string, { at: number; messageBody: string }>;
}

/** Node fires a longer setTimeout at once (with a warning), so far-off schedules are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The local scheduler: schedules like EventBridge Scheduler, and can be inspected and stopped. */
export interface LocalScheduler extends OneTimeScheduler {
  /** Names of the schedules that have not fired yet. */
  pending(): string[];
  stop(): Promise<void>;
}

async function load(file: string): Promise<SchedulesFile['schedules']> {
  const stored = await readVersionedRecord<{ at?: unknown; messageBody?: unknown } | undefined>(file, 'schedules', 'local schedules file');
  const valid: SchedulesFile['schedules'] = {};
  for (const [name, entry] of Object.entries(stored)) {
    if (Number.isFinite(entry?.at) && typeof entry?.messageBody === 'string')
      valid[name] = { at: entry.at as number, messageBody: entry.messageBody };
  }
  return valid;
}

/**
 * The local stand-in for EventBridge Scheduler behind the same `OneTimeScheduler`: each schedule sends its message to
 * the delivery queue once, at its time (to the millisecond; overdue ones right after start), then deletes itself,
 * as `ActionAfterCompletion: DELETE` does. Schedules live in `file` (JSON, atomic writes) so they survive a restart.
 * A send that fails is retried with backoff until it succeeds or the scheduler stops (the file keeps it). Like the
 * real service this is at-least-once: a crash between the send and the file write fires it again on the next start.
 */
export async function startLocalScheduler(options: {
  file: string;
  sqs: SQSClient;
  queueUrl: string;
  clock?: Clock;
}): Promise<LocalScheduler> {
  const clock = options.clock ?? systemClock;
  const schedules = await load(options.file);
  const timers = new Map<string, NodeJS.Timeout>();
  const firing = new Set<Promise<void>>();
  const failures = new Map<string, number>();
  const log = logger.child({ component: 'local-scheduler' });
  let writes: Promise<void> = Promise.resolve();
  let stopped = false;

  // Writes are chained so they land in order; each writes the state as it is when its turn comes.
  const persist = (): Promise<void> => {
    writes = writes.catch(() => undefined).then(() => writeJsonAtomic(options.file, { version: 1, schedules } satisfies SchedulesFile));
    return writes;
  };

  const arm = (name: string, delayMs: number): void => {
    if (stopped) return;
    const step = Math.min(MAX_TIMER_MS, Math.max(0, delayMs));
    const timer = setTimeout(() => {
      timers.delete(name);
      const entry = schedules[name];
      if (!entry) return;
      const remaining = entry.at - clock.now();
      if (remaining > 0) return arm(name, remaining);
      const run = fire(name, entry.messageBody).finally(() => firing.delete(run));
      firing.add(run);
    }, step);
    timers.set(name, timer);
  };

  async function fire(name: string, messageBody: string): Promise<void> {
    try {
      await options.sqs.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: messageBody }));
    } catch (error) {
      const attempt = (failures.get(name) ?? 0) + 1;
      failures.set(name, attempt);
      log.warn('Sending a scheduled message failed; retrying', { schedule: name, attempt, ...describeError(error) });
      arm(name, Math.min(60_000, 250 * 2 ** attempt));
      return;
    }
    failures.delete(name);
    delete schedules[name];
    await persist().catch((error: unknown) => log.error('Could not save the local schedules', describeError(error)));
  }

  for (const [name, entry] of Object.entries(schedules)) arm(name, entry.at - clock.now());

  return {
    async schedule(input: ScheduleInput) {
      assertScheduleName(input.name);
      if (!Number.isFinite(input.at)) throw new Error('Invalid schedule time: not a finite number of milliseconds');
      if (stopped) throw new Error('The local scheduler is stopped');
      if (schedules[input.name]) return;
      schedules[input.name] = { at: input.at, messageBody: input.messageBody };
      await persist();
      arm(input.name, input.at - clock.now());
    },
    pending: () => Object.keys(schedules),
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.all(firing);
      await writes.catch(() => undefined);
    },
  };
}
