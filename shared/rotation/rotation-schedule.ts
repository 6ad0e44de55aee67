import { ValidationError } from '../platform/errors.ts';
import type { PasswordRules } from '../platform/random-password.ts';

/**
 * The rules of a rotation's configuration (decisions.md v1.3, "Rotation"): its schedule (`rate(N hours|days)`,
 * `cron(…)` in EventBridge's six fields, or AWS's `AutomaticallyAfterDays` 1 to 1000), the window a scheduled start
 * may take (`Duration` 1h to 24h), the generator's defaults, and when the next rotation is due.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A rotation without a function by default: 32 characters of every class, without `"'\`\\` or a space. */
export const DEFAULT_GENERATOR: PasswordRules = { length: 32, excludeCharacters: '"\'`\\', includeSpace: false };

const RATE = /^rate\((\d{1,4}) (hour|hours|day|days)\)$/;

/** The interval of a `rate(…)` schedule, or undefined for a `cron(…)` (checkSchedule checks those); refuses anything else. */
export function intervalOf(schedule: string, field: string): number | undefined {
  const rate = RATE.exec(schedule);
  if (rate) {
    const count = Number(rate[1]);
    const hours = rate[2]!.startsWith('hour');
    if (count < 1 || (hours && (count < 4 || count > 23)) || (!hours && count > 1000))
      throw new ValidationError(`${field}: rate(N hours) takes 4 to 23 hours, rate(N days) 1 to 1000 days`);
    if ((count === 1) === rate[2]!.endsWith('s'))
      throw new ValidationError(
        `${field}: the unit is singular for 1 and plural otherwise, as EventBridge has it (rate(1 day), rate(7 days))`,
      );
    return count * (hours ? HOUR_MS : DAY_MS);
  }
  if (schedule.startsWith('cron(')) return undefined;
  throw new ValidationError(`${field}: a schedule is rate(N hours|days) or cron(minutes hours day-of-month month day-of-week year)`);
}

/** Checks `Duration`: 1h to 24h, in whole hours. */
export function checkDuration(duration: string | null | undefined, field: string): void {
  if (duration == null) return;
  const match = /^(\d{1,2})h$/.exec(duration);
  if (!match || Number(match[1]) < 1 || Number(match[1]) > 24) throw new ValidationError(`${field}: 1h to 24h, in whole hours`);
}

/**
 * Refuses a schedule EventBridge would not take, or one that can start two rotations less than 4 hours apart (AWS's
 * rule: `rate(N hours)` takes 4 or more; a cron expression's check loads the cron library, rotation-cron-gap.ts).
 */
export async function checkSchedule(schedule: string, field: string): Promise<void> {
  if (intervalOf(schedule, field) === undefined) (await import('./rotation-cron-gap.ts')).checkCronGap(schedule, field);
}

/**
 * When the next scheduled rotation is due: the interval after the last rotation (or after the configuration, before
 * any) for `rate(…)`; the next time after `now` the expression names for `cron(…)` (null when it names none).
 */
export async function nextRotationAt(schedule: string, since: string, now = Date.now()): Promise<string | null> {
  const interval = intervalOf(schedule, 'schedule');
  if (interval !== undefined) return new Date(Date.parse(since) + interval).toISOString();
  return (await import('./rotation-cron.ts')).cronOf(schedule, 'schedule').nextRun(new Date(now))?.toISOString() ?? null;
}
