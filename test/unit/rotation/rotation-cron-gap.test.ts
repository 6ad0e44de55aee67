import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/platform/errors.ts';
import { checkCronGap, shortestCronGap } from '../../../shared/rotation/rotation-cron-gap.ts';
import { CRON_OPTIONS, cronFieldsOf } from '../../../shared/rotation/rotation-cron.ts';
import { checkSchedule } from '../../../shared/rotation/rotation-schedule.ts';

/**
 * At most one rotation every 4 hours (decisions.md v1.4, Hardening): the shortest gap between two fires of a
 * cron(…) schedule, within a day and across the night into the next day, over every year the expression names.
 */

const gapOf = (schedule: string) => shortestCronGap(cronFieldsOf(schedule, 'schedule'));

/** The shortest gap under a day by walking every fire of 2027-2029 (a leap year among them) with croner itself. */
function walkedGap(schedule: string): number | undefined {
  const cron = new Cron(cronFieldsOf(schedule, 'schedule').join(' '), { ...CRON_OPTIONS, utcOffset: 0 });
  const end = Date.UTC(2030, 0, 1);
  let shortest = Number.POSITIVE_INFINITY;
  for (let last = cron.nextRun(new Date(Date.UTC(2026, 11, 31, 23, 59))), next; last && last.getTime() < end; last = next) {
    next = cron.nextRun(last);
    if (next && next.getTime() < end) shortest = Math.min(shortest, (next.getTime() - last.getTime()) / 60_000);
  }
  return shortest < 24 * 60 ? shortest : undefined;
}

describe('the shortest gap between two fires of a cron schedule', () => {
  it('is the gap within a day: every 4 hours is the limit, every 3 hours one past it', () => {
    expect(gapOf('cron(0 0/4 * * ? *)')).toBe(240);
    expect(gapOf('cron(0 0/3 * * ? *)')).toBe(180);
    expect(gapOf('cron(* * * * ? *)')).toBe(1);
    expect(gapOf('cron(0/15 10 * * ? *)')).toBe(15);
    expect(gapOf('cron(0 10 * * ? *)')).toBeUndefined();
  });

  it('counts the night into the next day when both days fire', () => {
    expect(gapOf('cron(0 1,5 * * ? *)')).toBe(240); // 01:00 to 05:00, and 20 hours to 01:00
    expect(gapOf('cron(0 0,22 * * ? *)')).toBe(120); // 22:00 to 00:00 of the next day
    expect(gapOf('cron(59 23,3 * * ? *)')).toBe(240); // 23:59 to 03:59
    expect(gapOf('cron(0 1,23 ? * SAT,SUN *)')).toBe(120); // Saturday 23:00 to Sunday 01:00
    expect(gapOf('cron(0 1,23 ? * MON,WED,FRI *)')).toBe(22 * 60); // no two days in a row
  });

  it('finds consecutive days that only a month or a year boundary makes', () => {
    expect(gapOf('cron(0 1,23 L * ? *)')).toBe(22 * 60); // the last day, then day 1, which does not fire
    expect(gapOf('cron(0 1,23 1,L * ? *)')).toBe(120); // the last day of a month, then the 1st
    expect(gapOf('cron(0 1,23 1,31 12,1 ? *)')).toBe(120); // only 31 December into 1 January
    expect(gapOf('cron(0 1,23 1,31 12,1 ? 2027)')).toBe(22 * 60); // 1 January 2028 is not in the year field
    expect(gapOf('cron(0 1,23 1,31 12,1 ? 2027-2028)')).toBe(120);
    expect(gapOf('cron(0 1,23 1,29 2,3 ? 2028)')).toBe(120); // 29 February 2028, then 1 March
    expect(gapOf('cron(0 1,23 1,29 2,3 ? 2027)')).toBe(22 * 60); // no 29 February in 2027
    expect(gapOf('cron(0 1,23 ? * 1#1,7#1 *)')).toBe(120); // a month starting on a Saturday: Saturday 1st, Sunday 2nd
    expect(gapOf('cron(0 1,23 ? * 6L *)')).toBe(22 * 60);
    expect(gapOf('cron(0 1,23 1W,2W * ? *)')).toBe(120); // the weekdays nearest the 1st and 2nd: adjacent midweek
  });

  it("agrees with walking every fire of three years with croner's own nextRun", () => {
    for (const schedule of [
      'cron(0 1,23 L * ? *)',
      'cron(0 1,23 1,L * ? *)',
      'cron(30 0,21 ? * 2#5,3#1 *)',
      'cron(0 2,22 15W,16W * ? *)',
      'cron(0 3,23 ? * 6L,7#1 2027-2029)',
      'cron(0 1,23 1,29 2,3 ? *)',
      'cron(0 0,20 1/2 * ? *)',
    ])
      expect([schedule, gapOf(schedule)]).toEqual([schedule, walkedGap(schedule)]);
  });

  it('costs milliseconds even when it must look at every year and find no two days in a row', () => {
    const started = performance.now();
    for (const schedule of ['cron(0 1,23 L * ? *)', 'cron(0 1,23 ? * 6L *)', 'cron(0 1,23 1W,15W * ? *)']) gapOf(schedule);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('a rotation schedule', () => {
  it('is refused when two rotations could start less than 4 hours apart, naming the field and the rule', async () => {
    await checkSchedule('cron(0 0/4 * * ? *)', 'schedule');
    await checkSchedule('cron(0 1,5 * * ? *)', 'schedule');
    await checkSchedule('cron(0 1,23 L * ? *)', 'schedule');
    for (const schedule of ['cron(0 0/3 * * ? *)', 'cron(* * * * ? *)', 'cron(0 0,22 * * ? *)', 'cron(0 1,23 1,31 12,1 ? *)'])
      await expect(checkSchedule(schedule, 'schedule')).rejects.toThrow(ValidationError);
    expect(() => checkCronGap('cron(0 0,22 * * ? *)', 'schedule')).toThrow(
      'schedule: two rotations of this cron schedule can start 2 h apart; at most one rotation every 4 hours is allowed',
    );
    expect(() => checkCronGap('cron(0/15 * * * ? *)', 'schedule')).toThrow('15 min apart');
  });
});
