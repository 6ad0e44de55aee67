import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../../shared/platform/logger.ts';
import { cronOf } from '../../shared/rotation/rotation-cron.ts';
import { intervalOf } from '../../shared/rotation/index.ts';
import { readVersionedRecord, writeJsonAtomic } from './json-file.ts';
import { describeError } from './sqs-poller.ts';

/**
 * The local stand-in for EventBridge Scheduler's recurring schedules (the rotation schedules): each sends its message
 * to its queue at every time its `rate(…)` (counted from when it was made or last changed) or `cron(…)` (UTC) names,
 * until it is deleted. Kept in a JSON file so they survive a restart; a time missed while the stack was down fires once
 * on the next start, as EventBridge's retry would. The flexible window is not emulated: a schedule fires on time.
 */

interface Recurring {
  expression: string;
  messageBody: string;
  queueUrl: string;
  since: number;
  /** The time it fired last (a restart fires a missed one once, not every one it missed). */
  lastFired?: number;
}

/** Node fires a longer setTimeout at once, so far-off times are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RecurringScheduler {
  put(name: string, schedule: Omit<Recurring, 'since' | 'lastFired'>): Promise<void>;
  remove(name: string): Promise<boolean>;
  has(name: string): boolean;
  stop(): Promise<void>;
}

/** The first time after `after` the schedule names, or undefined when it names none. */
export function nextFire(schedule: Pick<Recurring, 'expression' | 'since'>, after: number): number | undefined {
  const interval = intervalOf(schedule.expression, 'ScheduleExpression');
  if (interval !== undefined) return schedule.since + (Math.floor((after - schedule.since) / interval) + 1) * interval;
  return cronOf(schedule.expression, 'ScheduleExpression').nextRun(new Date(after))?.getTime();
}

export async function startRecurringScheduler(options: { file: string; sqs: SQSClient }): Promise<RecurringScheduler> {
  const schedules = await readVersionedRecord<Recurring>(options.file, 'schedules', 'local recurring schedules file');
  const timers = new Map<string, NodeJS.Timeout>();
  const log = logger.child({ component: 'local-recurring-scheduler' });
  let stopped = false;
  const persist = () => writeJsonAtomic(options.file, { version: 1, schedules });

  /** Fires under way (a send, then the file's write): stop() waits for them, so nothing writes after it. */
  const inFlight = new Set<Promise<void>>();
  const arm = (name: string) => {
    clearTimeout(timers.get(name));
    const schedule = schedules[name];
    if (!schedule || stopped) return;
    const at = nextFire(schedule, Math.max(schedule.lastFired ?? schedule.since, schedule.since));
    if (at === undefined) return;
    const timer = setTimeout(
      () => {
        if (Date.now() < at) return arm(name);
        const firing = fire(name, at);
        inFlight.add(firing);
        void firing.finally(() => inFlight.delete(firing));
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now())),
    );
    timers.set(name, timer);
  };

  async function fire(name: string, at: number) {
    const schedule = schedules[name];
    if (!schedule) return;
    try {
      await options.sqs.send(new SendMessageCommand({ QueueUrl: schedule.queueUrl, MessageBody: schedule.messageBody }));
    } catch (error) {
      log.warn('A recurring schedule could not send; it fires again at its next time', { schedule: name, ...describeError(error) });
    }
    // Armed for its next time before the file is written: the write takes real time, the timer must not wait for it.
    schedule.lastFired = Math.max(at, Date.now() - 1);
    arm(name);
    await persist().catch((error: unknown) => log.error('Could not save the recurring schedules', describeError(error)));
  }

  for (const name of Object.keys(schedules)) arm(name);

  return {
    async put(name, schedule) {
      schedules[name] = { ...schedule, since: Date.now() };
      await persist();
      arm(name);
    },
    async remove(name) {
      const had = name in schedules;
      delete schedules[name];
      clearTimeout(timers.get(name));
      timers.delete(name);
      if (had) await persist();
      return had;
    },
    has: (name) => name in schedules,
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
