import { iso, type Clock } from '../../platform/clock.ts';
import type { RecoverySweeperStore } from '../recovery/recovery-store.ts';
import type { DeliverySweeperStore } from './delivery-pipeline-store.ts';
import { newAttemptToken, type DeliveryMessage, type RecoveryMessage } from './delivery-message.ts';

export interface SweeperDeps {
  store: Pick<DeliverySweeperStore, 'dueDeliveries' | 'requeue'> & Pick<RecoverySweeperStore, 'stalledRecoveries'>;
  enqueue: (message: DeliveryMessage, options: { at: number; viaScheduler: boolean }) => Promise<void>;
  /** Queues a recovery's step again (the worker runs it). */
  enqueueRecovery: (message: RecoveryMessage) => Promise<void>;
  clock: Clock;
  /** How far past due a pending delivery (or a recovery's step) must be before it counts as lost. */
  graceMs: number;
}

/**
 * The sweep for work whose queue message was lost, run on a schedule, so that nothing stays pending forever. A
 * message or schedule lost between the DynamoDB update and its send (a crash, a throttle) leaves a pending delivery
 * past due: each one found `graceMs` past due gets a fresh attempt token by a conditional swap of the token it was
 * seen with, and a message now; the old message, should it still arrive, no longer matches and is dropped, so the
 * sweep sends nothing twice. A recovery of failed deliveries that has not moved for `graceMs` lost its step's
 * message: that step's message is sent again. Answers how many deliveries it re-queued and recoveries it restarted.
 */
export function makeSweeper(deps: SweeperDeps) {
  return async (): Promise<{ requeued: number; recoveriesRestarted: number }> => {
    const now = deps.clock.now();
    let requeued = 0;
    for (const due of await deps.store.dueDeliveries(iso(now - deps.graceMs))) {
      const attemptToken = newAttemptToken();
      if (!(await deps.store.requeue(due.workspaceId, due.id, due.attemptToken, attemptToken, iso(now)))) continue;
      await deps.enqueue({ workspaceId: due.workspaceId, deliveryId: due.id, attemptToken }, { at: now, viaScheduler: false });
      requeued++;
    }
    // A recovery that stopped moving lost its step's message: send it again. Should the message only be late, the
    // two runners of one step cannot queue a delivery twice (shared/webhooks/recovery/recovery-runner.ts).
    let recoveriesRestarted = 0;
    for (const recovery of await deps.store.stalledRecoveries(iso(now - deps.graceMs))) {
      await deps.enqueueRecovery({ workspaceId: recovery.workspaceId, recoveryId: recovery.id, step: recovery.step });
      recoveriesRestarted++;
    }
    return { requeued, recoveriesRestarted };
  };
}
