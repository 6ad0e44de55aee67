import { describe, expect, it } from 'vitest';
import { AUTO_DISABLE_WINDOW_MS, nextAttempt, shouldAutoDisable } from '../../../../shared/webhooks/deliveries/retry-policy.ts';

describe('retry policy', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('retries 1 min, 5 min, 25 min, 2 h and 12 h after failures 1 to 5, and never after the 6th', () => {
    const delays = [1, 2, 3, 4, 5].map((made) => nextAttempt(made, now, 1)!.at - now);
    expect(delays).toEqual([60_000, 300_000, 1_500_000, 7_200_000, 43_200_000]);
    expect(nextAttempt(6, now, 1)).toBeUndefined();
    expect(nextAttempt(7, now, 1)).toBeUndefined();
  });

  it('waits in SQS up to 15 minutes and in EventBridge Scheduler beyond, whatever the time scale', () => {
    expect([1, 2, 3, 4, 5].map((made) => nextAttempt(made, now, 1)!.viaScheduler)).toEqual([false, false, true, true, true]);
    expect([1, 2, 3, 4, 5].map((made) => nextAttempt(made, now, 0.001)!.viaScheduler)).toEqual([false, false, true, true, true]);
    expect(nextAttempt(5, now, 0.001)!.at - now).toBe(43_200);
  });

  it('switches an endpoint off only after 20 failures in a row spanning 24 hours', () => {
    const since = (ms: number) => new Date(now - ms).toISOString();
    expect(shouldAutoDisable(20, since(AUTO_DISABLE_WINDOW_MS), now, 1)).toBe(true);
    expect(shouldAutoDisable(19, since(AUTO_DISABLE_WINDOW_MS * 2), now, 1)).toBe(false);
    expect(shouldAutoDisable(500, since(AUTO_DISABLE_WINDOW_MS - 1), now, 1)).toBe(false);
    expect(shouldAutoDisable(20, null, now, 1)).toBe(false);
    expect(shouldAutoDisable(20, since(AUTO_DISABLE_WINDOW_MS / 1000), now, 0.001)).toBe(true);
  });
});
