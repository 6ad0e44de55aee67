import { ConflictError } from '../platform/errors.ts';
import { VersionConflictError } from './secret-record.ts';

/**
 * Runs `attempt` (read the head, decide, write conditionally on what was read) until its write wins: a lost race
 * (VersionConflictError) reads again after a full-jitter pause whose window doubles per attempt up to `capMs`, so a
 * concurrent change is merged, never overwritten. After `attempts` lost races it is CONFLICT, for the caller to retry.
 */
export async function untilHeadWritten<T>(
  secretId: string,
  options: { attempts: number; capMs: number; stepMs: number },
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  for (let n = 0; n < options.attempts; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      const window = Math.min(options.capMs, options.stepMs * 2 ** Math.min(n, 6));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * window));
    }
  }
  throw new ConflictError(`secret ${secretId}: too many concurrent changes; retry`);
}
