import { iso, type Clock } from '../platform/clock.ts';
import type { Store } from '../store.ts';
import { newAttemptToken, type DeliveryMessage, type RecoveryMessage } from './delivery-message.ts';

export interface SweeperDeps {
  store: Pick<Store, 'dueDeliveries' | 'requeue' | 'pendingPurges' | 'purgeSecretVersions' | 'stalledRecoveries'>;
  enqueue: (message: DeliveryMessage, options: { at: number; viaScheduler: boolean }) => Promise<void>;
  /** Queues a recovery's step again (the worker runs it). */
  enqueueRecovery: (message: RecoveryMessage) => Promise<void>;
  clock: Clock;
  /** How far past due a pending delivery must be before it counts as lost. */
  graceMs: number;
}

/**
 * Also restarts recoveries of failed deliveries whose step's message was lost, and purges deleted secrets whose recovery window has ended, and purges a crash interrupted (see
 * shared/secrets/deleted-secret-store.ts): both are records on GSI2 `PURGE` whose `purgeAt` has passed.
 *
 * Nothing stays pending forever: a queue message or schedule lost between the DynamoDB update and its send (a
 * crash, a throttle) leaves a pending delivery past due. Each one found gets a fresh attempt token by a
 * conditional swap of the token it was seen with, and a message now; the old message, should it still arrive,
 * no longer matches and is dropped, so nothing is sent twice by the sweep. Answers how many were re-queued.
 */
export function makeSweeper(deps: SweeperDeps) {
  return async (): Promise<{ requeued: number; purged: number; recoveriesRestarted: number }> => {
    const now = deps.clock.now();
    let requeued = 0;
    for (const due of await deps.store.dueDeliveries(iso(now - deps.graceMs))) {
      const attemptToken = newAttemptToken();
      if (!(await deps.store.requeue(due.workspaceId, due.id, due.attemptToken, attemptToken, iso(now)))) continue;
      await deps.enqueue({ workspaceId: due.workspaceId, deliveryId: due.id, attemptToken }, { at: now, viaScheduler: false });
      requeued++;
    }
    // A deleted secret whose window ended (or whose purge at once was interrupted): its versions, list item and record go.
    let purged = 0;
    for (const purge of await deps.store.pendingPurges(iso(now - deps.graceMs))) {
      await deps.store.purgeSecretVersions(purge.workspaceId, purge.secretId);
      purged++;
    }
    // A recovery that stopped moving lost its step's message: send it again. Should the message only be late, the
    // two runners of one step cannot queue a delivery twice (shared/webhooks/recovery.ts).
    let recoveriesRestarted = 0;
    for (const recovery of await deps.store.stalledRecoveries(iso(now - deps.graceMs))) {
      await deps.enqueueRecovery({ workspaceId: recovery.workspaceId, recoveryId: recovery.id, step: recovery.step });
      recoveriesRestarted++;
    }
    return { requeued, purged, recoveriesRestarted };
  };
}
