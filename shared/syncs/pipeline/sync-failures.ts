import { iso } from '../../platform/clock.ts';
import type { SyncMessage } from '../sync-queue.ts';
import type { PushOutcome, RunnableSync } from './sync-run-store.ts';

/**
 * How a sync fails (decisions.md v1.4, "Syncs"): a failed push is retried on the webhook pipeline's schedule (1 min,
 * 5 min, 25 min, 2 h, 12 h after each failure, then every 12 h), the last wait cut so an attempt falls when the
 * failures have lasted 24 hours; a push that fails then makes the sync `failing` (once: its audit entry fires
 * `service.sync.failed`) and background retries stop: every change and `run` still pushes, and the first success
 * makes it `ok` again (`service.sync.recovered`).
 */

/** The webhook pipeline's retry delays (shared/webhooks/deliveries/retry-policy.ts), repeated at the last. */
export const SYNC_RETRY_DELAYS_MS = [60_000, 300_000, 1_500_000, 7_200_000, 43_200_000] as const;
/** How long failures last before the sync is `failing`. */
export const FAILING_AFTER_MS = 24 * 3_600_000;
/** At most this much of a platform's error message is kept as `lastError`. */
const MAX_ERROR_LENGTH = 500;

/** A failed push's outcome. */
export type FailedPush = PushOutcome & { lastError: string; failingSince: string };

/**
 * The outcome of a push that threw: its error (the destination's message: the platform's status and code, never a
 * value or a token) and since when the sync fails; `failing` once that is 24 hours ago (scaled by `timeScale`).
 */
export function failedPush(sync: RunnableSync, error: unknown, startedAt: number, now: number, timeScale: number): FailedPush {
  const failingSince = sync.failingSince ?? iso(startedAt);
  const failing = sync.status === 'failing' || now - Date.parse(failingSince) >= FAILING_AFTER_MS * timeScale;
  return {
    status: failing ? 'failing' : sync.status === 'ok' || sync.status === 'pending' ? sync.status : 'pending',
    lastSyncedAt: sync.lastSyncedAt,
    lastError: errorText(error),
    failingSince,
  };
}

/** The retry of a failed push's message: the next attempt, due after the schedule's wait (never past the 24 hours). */
export function retryOf(message: SyncMessage, failed: FailedPush, now: number, timeScale: number): SyncMessage {
  const step = SYNC_RETRY_DELAYS_MS[Math.min(message.attempt, SYNC_RETRY_DELAYS_MS.length) - 1]!;
  const failingAt = Date.parse(failed.failingSince) + FAILING_AFTER_MS * timeScale;
  const due = Math.min(now + Math.round(step * timeScale), Math.max(failingAt, now + 1000));
  return { ...message, attempt: message.attempt + 1, notBefore: due };
}

/** A thrown error as `lastError`: its message, cut short; a DestinationError's is made for it. */
function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name === 'DestinationError' ? '' : `${error.name}: `}${error.message}` : 'the push failed';
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
