import { Cron } from 'croner';
import { ValidationError } from '../platform/errors.ts';

/**
 * EventBridge's cron (minutes hours day-of-month month day-of-week year, days of the week 1-7 from Sunday) as croner
 * reads it (seconds first, days of the week 0-7 from Sunday), in UTC, as EventBridge Scheduler runs it without a time
 * zone. `#n` keeps its n (the n-th such day), so only the days before it shift.
 */

/** croner's seven fields (seconds first) of an EventBridge cron expression. */
export type CronFields = readonly [string, string, string, string, string, string, string];

/**
 * croner's options for EventBridge's expressions: `sloppyRanges` because EventBridge takes a step from a number
 * (`0/15`, every 15 minutes from 0), which croner refuses by default; days of the month AND days of the week, as
 * one of them is always `?`.
 */
export const CRON_OPTIONS = { mode: '7-part', paused: true, domAndDow: true, sloppyRanges: true } as const;

/** The croner fields of `cron(…)`; refuses anything but EventBridge's six fields with `?` in exactly one day field. */
export function cronFieldsOf(schedule: string, field: string): CronFields {
  const fields = /^cron\((.+)\)$/.exec(schedule)?.[1]?.trim().split(/\s+/);
  if (!fields || fields.length !== 6)
    throw new ValidationError(`${field}: a schedule is rate(N hours|days) or cron(minutes hours day-of-month month day-of-week year)`);
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string];
  if ((dayOfMonth === '?') === (dayOfWeek === '?'))
    throw new ValidationError(`${field}: cron takes ? in exactly one of day-of-month and day-of-week`);
  const weekday = dayOfWeek.replace(/(?<![#\d])([1-7])(?!\d)/g, (day) => String(Number(day) - 1));
  return ['0', minutes, hours, dayOfMonth, month, weekday, year];
}

/** The expression as a paused croner job in UTC (its `nextRun` is when EventBridge would fire next). */
export function cronOf(schedule: string, field: string): Cron {
  const fields = cronFieldsOf(schedule, field);
  try {
    return new Cron(fields.join(' '), { ...CRON_OPTIONS, timezone: 'UTC' });
  } catch {
    throw new ValidationError(`${field}: not a cron expression EventBridge would take`);
  }
}
