/**
 * Delivery policy of api.md sections 3, 6 and 8: six attempts with retries 1 min, 5 min, 25 min, 2 h and 12 h after
 * each failure; an endpoint is switched off after 20 failed attempts in a row once it has failed for 24 hours.
 */
export const MAX_ATTEMPTS = 6;
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_500_000, 7_200_000, 43_200_000] as const;
export const AUTO_DISABLE_FAILURES = 20;
export const AUTO_DISABLE_WINDOW_MS = 24 * 3_600_000;
/** Steps up to this long wait in SQS (DelaySeconds); longer ones go through EventBridge Scheduler. */
export const MAX_SQS_DELAY_MS = 15 * 60_000;
/** A receiver has this long for the whole exchange. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * When the attempt after `attemptsMade` failed attempts happens, or undefined when none is left. `timeScale`
 * (WEBHOOK_TIME_SCALE, local use only) shrinks the wait; the channel is chosen from the unscaled step, so the local
 * stack exercises the same SQS and Scheduler paths as AWS.
 */
export function nextAttempt(attemptsMade: number, now: number, timeScale: number): { at: number; viaScheduler: boolean } | undefined {
  const delay = RETRY_DELAYS_MS[attemptsMade - 1];
  if (delay === undefined || attemptsMade >= MAX_ATTEMPTS) return undefined;
  return { at: now + Math.round(delay * timeScale), viaScheduler: delay > MAX_SQS_DELAY_MS };
}

/** True when an endpoint's failure streak calls for switching it off; a short outage never does. */
export function shouldAutoDisable(consecutiveFailures: number, failingSince: string | null, now: number, timeScale: number): boolean {
  if (consecutiveFailures < AUTO_DISABLE_FAILURES || !failingSince) return false;
  return now - Date.parse(failingSince) >= AUTO_DISABLE_WINDOW_MS * timeScale;
}
