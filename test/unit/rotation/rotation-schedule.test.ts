import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/platform/errors.ts';
import { checkDuration, checkSchedule, intervalOf, nextRotationAt } from '../../../shared/rotation/rotation-schedule.ts';

/** The schedule rules of a rotation (decisions.md v1.3): each limit, and one past it. */

const refused = (act: () => unknown) => expect(act).toThrow(ValidationError);
const DAY = 86_400_000;

describe('rotation schedules', () => {
  it('take rate(N hours) from 4 to 23 and rate(N days) from 1 to 1000, singular for 1 as EventBridge has it', () => {
    expect(intervalOf('rate(4 hours)', 'schedule')).toBe(4 * 3_600_000);
    expect(intervalOf('rate(23 hours)', 'schedule')).toBe(23 * 3_600_000);
    expect(intervalOf('rate(1 day)', 'schedule')).toBe(DAY);
    expect(intervalOf('rate(1000 days)', 'schedule')).toBe(1000 * DAY);
    for (const bad of ['rate(3 hours)', 'rate(24 hours)', 'rate(0 days)', 'rate(1001 days)', 'rate(1 days)', 'rate(2 day)', 'daily', ''])
      refused(() => intervalOf(bad, 'schedule'));
  });

  it("take EventBridge's six-field cron with ? in exactly one day field, Sunday as 1", async () => {
    const now = Date.parse('2026-11-28T12:00:00Z'); // a Saturday
    expect(await nextRotationAt('cron(0 10 ? * MON-FRI *)', '', now)).toBe('2026-11-30T10:00:00.000Z');
    expect(await nextRotationAt('cron(0 10 ? * 2 *)', '', now)).toBe('2026-11-30T10:00:00.000Z'); // 2 is Monday
    expect(await nextRotationAt('cron(0 10 ? * 1 *)', '', now)).toBe('2026-11-29T10:00:00.000Z'); // 1 is Sunday
    expect(await nextRotationAt('cron(30 4 ? * 6#3 *)', '', now)).toBe('2026-12-18T04:30:00.000Z'); // the third Friday
    expect(await nextRotationAt('cron(0 0 1 * ? *)', '', now)).toBe('2026-12-01T00:00:00.000Z');
    expect(await nextRotationAt('cron(0 0 1 1 ? 2027)', '', now)).toBe('2027-01-01T00:00:00.000Z');
    for (const bad of ['cron(0 10 * * * *)', 'cron(0 10 ? * ? *)', 'cron(0 10 ? * MON-FRI)', 'cron(61 10 ? * MON *)', 'cron()'])
      await expect(checkSchedule(bad, 'schedule')).rejects.toThrow(ValidationError);
  });

  it('put the next rotation one interval after the last (or the configuration) for rate()', async () => {
    expect(await nextRotationAt('rate(7 days)', '2026-01-01T00:00:00.000Z')).toBe('2026-01-08T00:00:00.000Z');
  });

  it('take a Duration of 1h to 24h in whole hours', () => {
    checkDuration('1h', 'duration');
    checkDuration('24h', 'duration');
    checkDuration(null, 'duration');
    for (const bad of ['0h', '25h', '90m', '1.5h', 'h']) refused(() => checkDuration(bad, 'duration'));
  });
});
