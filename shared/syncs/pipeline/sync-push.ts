import { randomUUID } from 'node:crypto';
import { globMatcher } from '../../platform/glob.ts';
import { systemAuditEntry } from '../../audit/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PushedValue, SyncDestination } from '../destinations/destination.ts';
import type { SyncMessage, SyncQueue } from '../sync-queue.ts';
import { failedPush, retryOf, type FailedPush } from './sync-failures.ts';
import type { PushOutcome, RunnableSync, SyncRunStore } from './sync-run-store.ts';

/**
 * One push of one sync (decisions.md v1.4, "Syncs"): under the sync's lease, so pushes of a sync never overlap and
 * each sends what is current when it runs (an older value can never land after a newer one); the values revealed
 * (each audited `secret.reveal` with `syncId` before it is answered) are put at the destination, and with `prune` the
 * keys it wrote that left the environment are removed there. Its outcome (status, lastSyncedAt, lastError) lands with
 * the lease's release; a failure is retried on the webhook pipeline's schedule until it has failed for 24 hours.
 */

export interface SyncPushDeps {
  runs: Pick<SyncRunStore, 'getRunnableSync' | 'takeLease' | 'finishPush' | 'releaseLease' | 'getWrittenKeys'>;
  /**
   * The current resolved values of the sync's environment (`keys`, or every key when null; keys without a value are
   * absent), each audited `secret.reveal` with `syncId` before it is answered.
   */
  reveal: (
    workspaceId: string,
    sync: RunnableSync,
    keys: readonly string[] | null,
    matches: (key: string) => boolean,
  ) => Promise<PushedValue[]>;
  destinationOf: (sync: RunnableSync, workspaceId: string) => Promise<SyncDestination>;
  queue: SyncQueue;
  clock: Clock;
  log: Logger;
  /** WEBHOOK_TIME_SCALE: shrinks the retry delays and the 24-hour window (local stack and tests only). */
  timeScale: number;
  /** Counts a sync that became failing (the stack's alarm). */
  onFailing?: () => void;
}

/** How long a push may hold its sync: the worker's timeout and a margin (shared/platform/functions.ts). */
export const LEASE_MS = 150_000;
/** How long a message waits when its sync is being pushed by another worker. */
const BUSY_RETRY_SECONDS = 5;

export function makeSyncPush(deps: SyncPushDeps) {
  const { runs, clock } = deps;

  return async function push(message: SyncMessage): Promise<void> {
    const now = clock.now();
    if (message.notBefore !== undefined && message.notBefore > now) {
      await deps.queue.enqueue(message, (message.notBefore - now) / 1000);
      return;
    }
    const sync = await runs.getRunnableSync(message.workspaceId, message.syncId);
    // Deleted or paused: nothing to push (resuming queues a full push).
    if (!sync || sync.status === 'paused') return;
    // A full push that started after this change has sent its keys as they were then, or newer.
    if (message.keys !== null && message.at < sync.pushedThrough) return;
    const owner = randomUUID();
    if (!(await runs.takeLease(message.workspaceId, sync.id, owner, now, now + LEASE_MS))) {
      await deps.queue.enqueue(message, BUSY_RETRY_SECONDS);
      return;
    }
    let outcome: PushOutcome;
    let retry: SyncMessage | undefined;
    try {
      outcome = await pushed(sync, message, now);
    } catch (error) {
      const failed = failedPush(sync, error, now, clock.now(), deps.timeScale);
      outcome = withAudit(sync, failed, clock.now());
      retry = failed.status === 'failing' ? undefined : retryOf(message, failed, clock.now(), deps.timeScale);
      if (failed.status === 'failing' && sync.status !== 'failing') deps.onFailing?.();
      deps.log.warn('sync push failed', { syncId: sync.id, attempt: message.attempt, error: failed.lastError });
    }
    if (!(await runs.finishPush(message.workspaceId, sync.id, owner, outcome))) {
      deps.log.warn('sync push outlived its lease', { syncId: sync.id });
    }
    if (retry) await deps.queue.enqueue(retry, Math.max(0, ((retry.notBefore ?? 0) - clock.now()) / 1000));
  };

  /** The push itself; throws what the destination or a read threw. */
  async function pushed(sync: RunnableSync, message: SyncMessage, startedAt: number): Promise<PushOutcome> {
    const matches = globMatcher([sync.keys]);
    const destination = await deps.destinationOf(sync, message.workspaceId);
    const full = message.keys === null || destination.wholeEnvironment;
    const asked = full ? null : message.keys!.filter(matches);
    if (asked?.length === 0) return success(sync, clock.now(), undefined);
    const values = await deps.reveal(message.workspaceId, sync, asked, matches);
    const written = await runs.getWrittenKeys(message.workspaceId, sync.id);
    const present = new Set(values.map((value) => value.key));
    // Keys it wrote that left the environment (or, after a full push, its pattern); a json destination's one
    // secret holds exactly what it put.
    const considered = asked ?? [...written];
    const gone = sync.prune && !destination.wholeEnvironment ? considered.filter((key) => written.has(key) && !present.has(key)) : [];
    if (values.length > 0) await destination.put(values);
    if (gone.length > 0) await destination.remove(gone);
    const next = new Set([...written, ...present]);
    for (const key of gone) next.delete(key);
    // The written keys' item is rewritten only when they changed (a new key, a removed one): most pushes leave it.
    const changed = next.size !== written.size || [...next].some((key) => !written.has(key));
    return success(sync, clock.now(), full ? startedAt : undefined, changed ? next : undefined);
  }
}

/** A push that succeeded: `ok`, and `service.sync.recovered` when it was failing. */
function success(sync: RunnableSync, now: number, pushedThrough: number | undefined, written?: ReadonlySet<string>): PushOutcome {
  const outcome: PushOutcome = {
    status: 'ok',
    lastSyncedAt: iso(now),
    lastError: null,
    failingSince: null,
    ...(pushedThrough !== undefined && { pushedThrough }),
    ...(written && { written }),
  };
  return sync.status === 'failing' ? withAudit(sync, outcome, now) : outcome;
}

/**
 * The outcome with its `sync.update` audit entry by the service when the status moves to or from `failing`: the
 * entry is the source of `service.sync.failed` and `service.sync.recovered` (shared/webhooks' events).
 */
function withAudit<T extends PushOutcome | FailedPush>(sync: RunnableSync, outcome: T, now: number): T {
  const changed = (outcome.status === 'failing') !== (sync.status === 'failing');
  if (!changed) return outcome;
  const metadata = {
    syncId: sync.id,
    environmentId: sync.environmentId,
    projectId: sync.projectId,
    destinationType: sync.destination.type,
    status: outcome.status,
    lastError: outcome.lastError,
  };
  return { ...outcome, audit: systemAuditEntry(sync.accountId, 'sync.update', sync.id, metadata, now) };
}
