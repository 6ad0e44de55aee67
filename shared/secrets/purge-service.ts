import { iso, type Clock } from '../platform/clock.ts';
import type { PurgeStore } from './purge-store.ts';

/**
 * How long past its `purgeAt` a deleted secret waits for its purge. A restore is refused from `purgeAt` on by the
 * restoring function's own clock (deleted-secret-store.ts `restoreSecret`); the margin keeps the purger, on another
 * machine's clock, from deleting the versions of a secret whose restore was still accepted. It also leaves a purge at
 * once (a delete without a window) to its own request, so only the ones a crash interrupted are picked up here.
 */
export const PURGE_GRACE_MS = 5 * 60_000;

export interface PurgeServiceDeps {
  store: Pick<PurgeStore, 'pendingPurges' | 'purgeSecretVersions'>;
  clock: Clock;
}

/** What a run of the purger did. */
export interface PurgeRun {
  /** Deleted secrets whose items are now gone. */
  purged: number;
}

/**
 * The end of recovery windows (decisions.md, "Recoverable deletes"): each run purges the deleted secrets whose
 * `purgeAt` passed at least PURGE_GRACE_MS ago, and the purges a crash interrupted (their record stays until the
 * last item is gone, so the next run finds them again). Runs on a schedule (functions/secret-purger).
 */
export function makePurgeService(deps: PurgeServiceDeps) {
  return {
    /** Purges every deleted secret due, up to the store's page of them, and counts them. */
    async purgeDue(): Promise<PurgeRun> {
      let purged = 0;
      for (const due of await deps.store.pendingPurges(iso(deps.clock.now() - PURGE_GRACE_MS))) {
        await deps.store.purgeSecretVersions(due.workspaceId, due.secretId);
        purged++;
      }
      return { purged };
    },
  };
}

/** The purger's service (functions/secret-purger, the local stack). */
export type PurgeService = ReturnType<typeof makePurgeService>;
