import { Cron } from 'croner';
import { ValidationError } from '../platform/errors.ts';

/**
 * EventBridge's cron (minutes hours day-of-month month day-of-week year, days of the week 1-7 from Sunday) as croner
 * reads it (seconds first, days of the week 0-7 from Sunday), in UTC, as EventBridge Scheduler runs it without a time
 * zone. `#n` keeps its n (the n-th such day), so only the days before it shift.
 */
export function cronOf(schedule: string, field: string): Cron {
  const fields = /^cron\((.+)\)$/.exec(schedule)?.[1]?.trim().split(/\s+/);
  if (!fields || fields.length !== 6)
    throw new ValidationError(`${field}: a schedule is rate(N hours|days) or cron(minutes hours day-of-month month day-of-week year)`);
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string];
  if ((dayOfMonth === '?') === (dayOfWeek === '?'))
    throw new ValidationError(`${field}: cron takes ? in exactly one of day-of-month and day-of-week`);
  const weekday = dayOfWeek.replace(/(?<![#\d])([1-7])(?!\d)/g, (day) => String(Number(day) - 1));
  try {
    return new Cron(`0 ${minutes} ${hours} ${dayOfMonth} ${month} ${weekday} ${year}`, { timezone: 'UTC', paused: true, domAndDow: true });
  } catch {
    throw new ValidationError(`${field}: not a cron expression EventBridge would take`);
  }
}
