import { Cron, CronPattern } from 'croner';
import { ValidationError } from '../platform/errors.ts';
import { CRON_OPTIONS, cronFieldsOf, cronOf, type CronFields } from './rotation-cron.ts';

/**
 * How close two fires of a `cron(…)` schedule can come (decisions.md v1.4, Hardening: at most one rotation every 4
 * hours, AWS's rule), over the expression's whole range of years rather than a sampled day. Every day that fires
 * fires at the same times of day (minutes x hours), so the shortest gap is the smallest one between two of those
 * times, or, when two consecutive calendar days can both fire, the night's: 24 h minus (last time - first time). A
 * gap between days further apart is more than a day.
 *
 * Whether two consecutive days fire depends on the day fields (L, W, #, ranges, steps), the month and the year. A
 * month's fire days depend only on its length and the weekday it starts on (28 shapes), and a year's months only on
 * whether it is a leap year and the weekday it starts on (14 shapes, times whether the next year may fire, for the
 * night of 31 December): each shape is evaluated once with croner's own `match`, so the cost is bounded by 28 months
 * of at most 31 days and one pass over croner's 9,999 years, whatever the expression.
 */

const DAY_MINUTES = 24 * 60;
/** AWS's floor between two rotations. */
export const MIN_ROTATION_GAP_MINUTES = 4 * 60;

/** The fire times of a day, in minutes after midnight, ascending. */
function timesOfDay(pattern: CronPattern): number[] {
  const times: number[] = [];
  for (let hour = 0; hour < 24; hour++)
    if (pattern.hour[hour]) for (let minute = 0; minute < 60; minute++) if (pattern.minute[minute]) times.push(hour * 60 + minute);
  return times;
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const monthLength = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
/** The weekday 1 January of `year` falls on (Date.UTC would read years below 100 as 19xx). */
const newYearWeekday = (year: number) => new Date(new Date(0).setUTCFullYear(year, 0, 1)).getUTCDay();

/** How a year's months fall: whether it is a leap year, and the weekday it starts on (14 shapes). */
const yearShape = (year: number, weekday: number) => (isLeap(year) ? 7 : 0) + weekday;
/**
 * For each shape, a year of 2000-2027 that has it (every shape occurs in those 28 years): the fire days are computed
 * in it, as croner computes weekdays with Date.UTC, which misreads years below 100.
 */
const TWIN_YEARS = new Map(Array.from({ length: 28 }, (_, i) => 2000 + i).map((year) => [yearShape(year, newYearWeekday(year)), year]));

/**
 * Whether two consecutive calendar days can both fire in some year the expression names. `dayFields` are croner's
 * day-of-month and day-of-week fields; `pattern` gives the months and years.
 */
function consecutiveFireDays(dayFields: readonly [string, string], pattern: CronPattern): boolean {
  // `*` rather than `?` spares croner a weekday check of every day (it treats `?` as a pattern); UTC as an offset
  // spares it a time-zone conversion per day.
  const [dayOfMonth, dayOfWeek] = dayFields.map((day) => (day === '?' ? '*' : day));
  const days = new Cron(`0 0 0 ${dayOfMonth} * ${dayOfWeek} *`, { ...CRON_OPTIONS, utcOffset: 0 });
  const shapes = new Map<number, number>();
  /** The month's fire days as bits (day d is bit d-1), computed once per length and first weekday. */
  const fireDays = (year: number, month: number) => {
    const length = monthLength(year, month);
    const shape = length * 7 + new Date(Date.UTC(year, month, 1)).getUTCDay();
    let mask = shapes.get(shape);
    if (mask === undefined) {
      mask = 0;
      for (let day = 1; day <= length; day++) if (days.match(new Date(Date.UTC(year, month, day)))) mask |= 1 << (day - 1);
      shapes.set(shape, mask);
    }
    return mask;
  };
  const monthFires = (month: number) => pattern.month[month] === 1;
  const yearFires = (year: number) => year >= 1 && year < pattern.year.length && pattern.year[year] === 1;
  /**
   * Whether a year falling as `twin` does holds two consecutive fire days; the night into 1 January counts when
   * `nextYearFires`.
   */
  const yearHasPair = (twin: number, nextYearFires: boolean) => {
    for (let month = 0; month < 12; month++) {
      if (!monthFires(month)) continue;
      const mask = fireDays(twin, month);
      if ((mask & (mask >>> 1)) !== 0) return true;
      const lastFires = ((mask >>> (monthLength(twin, month) - 1)) & 1) === 1;
      const nextFires = month === 11 ? nextYearFires && monthFires(0) : monthFires(month + 1);
      if (lastFires && nextFires && (fireDays(month === 11 ? twin + 1 : twin, (month + 1) % 12) & 1) === 1) return true;
    }
    return false;
  };
  const seen = new Map<number, boolean>();
  let weekday = newYearWeekday(1);
  for (let year = 1; year < pattern.year.length; year++) {
    if (yearFires(year)) {
      const shape = yearShape(year, weekday);
      const key = shape * 2 + (yearFires(year + 1) ? 1 : 0);
      let pair = seen.get(key);
      if (pair === undefined) seen.set(key, (pair = yearHasPair(TWIN_YEARS.get(shape)!, yearFires(year + 1))));
      if (pair) return true;
    }
    weekday = (weekday + (isLeap(year) ? 366 : 365)) % 7;
  }
  return false;
}

/**
 * The shortest time between two consecutive fires of the expression, in minutes, when it is under a day; undefined
 * when fires are a day or more apart (or it never fires twice).
 */
export function shortestCronGap(fields: CronFields): number | undefined {
  const pattern = new CronPattern(fields.join(' '), undefined, CRON_OPTIONS);
  const times = timesOfDay(pattern);
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i]! - times[i - 1]!);
  const overnight = times.length > 1 ? DAY_MINUTES - (times.at(-1)! - times[0]!) : DAY_MINUTES;
  // Only a night shorter than every gap within the day changes the answer, and only if two adjacent days fire.
  if (overnight < gap && overnight < DAY_MINUTES && consecutiveFireDays([fields[3], fields[5]], pattern)) gap = overnight;
  return gap < DAY_MINUTES ? gap : undefined;
}

const spelled = (minutes: number) =>
  [Math.floor(minutes / 60) && `${Math.floor(minutes / 60)} h`, minutes % 60 && `${minutes % 60} min`].filter(Boolean).join(' ');

/** Refuses a `cron(…)` EventBridge would not take, or whose fires can come closer than 4 hours (AWS's rule). */
export function checkCronGap(schedule: string, field: string): void {
  cronOf(schedule, field);
  const gap = shortestCronGap(cronFieldsOf(schedule, field));
  if (gap !== undefined && gap < MIN_ROTATION_GAP_MINUTES)
    throw new ValidationError(
      `${field}: two rotations of this cron schedule can start ${spelled(gap)} apart; at most one rotation every 4 hours is allowed`,
    );
}
