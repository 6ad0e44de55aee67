import { randomUUID } from 'node:crypto';
import { ConflictError } from '../platform/errors.ts';
import { secretArn, versionIdOf } from '../secrets/index.ts';
import { makeRotationLease, STEP_LEASE_MS, type RotationServiceDeps } from './rotation-lease.ts';
import type { RotationMessage } from './rotation-records.ts';
import { SCHEDULED_START, type StoredRotation } from './rotation-store.ts';

/**
 * The runner's side of rotation (rotation-runner.ts calls it, one step per message of the rotation queue): a
 * schedule's start, the lease moved on step by step and ended, the value of a rotation without a function, the
 * schedules kept. Only the runner's function builds it, so the API functions carry none of it.
 */
export function makeRotationSteps(deps: RotationServiceDeps) {
  const { secrets, store, clock } = deps;
  const { begin, finish } = makeRotationLease(deps);
  const queue = () => {
    if (!deps.queue) throw new Error('no rotation queue in this function');
    return deps.queue;
  };

  return {
    finishRotation: finish,

    /** The runner's side: a scheduled start (the service acting on its own). */
    async startScheduledRotation(workspaceId: string, secretId: string) {
      const rotation = await store.getRotation(workspaceId, secretId);
      if (!rotation?.enabled) return undefined;
      // A deleted secret's schedule goes with its first start after the delete.
      if (!(await secrets.head(workspaceId, secretId))) {
        await deps.schedules?.remove(secretId);
        return undefined;
      }
      try {
        return await begin(workspaceId, rotation, randomUUID(), SCHEDULED_START);
      } catch (error) {
        // A rotation already running (a rotate-now, or a slow one) is this start's rotation too.
        if (error instanceof ConflictError) return undefined;
        throw error;
      }
    },

    /** The runner's side: makes the secret's schedule what its rotation item says (put while on, gone otherwise). */
    async syncRotationSchedule(workspaceId: string, secretId: string) {
      if (!deps.schedules) return;
      const rotation = await store.getRotation(workspaceId, secretId);
      const live = rotation?.enabled && (await secrets.head(workspaceId, secretId));
      if (live) await deps.schedules.put(workspaceId, secretId, rotation.schedule, rotation.duration);
      else await deps.schedules.remove(secretId);
    },

    /**
     * The runner's side: whether it may invoke `arn` for the workspace, asked before each invocation; the same decision
     * as the configuration's (rotation-functions.ts), so `${workspaceId}` in a pattern means the same in both.
     */
    rotationFunctionAllowed: (workspaceId: string, arn: string) => deps.functionAllowed(arn, workspaceId),

    /** The runner's side: the rotation a step's message belongs to, when its token still holds the lease. */
    async rotationHeldBy(workspaceId: string, secretId: string, token: string) {
      const rotation = await store.getRotation(workspaceId, secretId);
      return rotation?.lease?.token === token ? rotation : undefined;
    },

    /** The runner's side: moves the lease to the next step and queues it. */
    async nextRotationStep(message: RotationMessage) {
      const sender = queue();
      const until = clock.now() + STEP_LEASE_MS;
      const held = await store.advanceRotationLease(message.workspaceId, message.secretId, message.token, message.step, until);
      if (held) await sender.send(message);
    },

    /**
     * The runner's side, for a rotation without a function: writes `value` as the token's version and makes it
     * AWSCURRENT, audited `secret.rotate` by the service itself (so `service.secret.rotate` tells consumers).
     */
    writeRotatedValue: (rotation: StoredRotation, workspaceId: string, token: string, value: string) =>
      secrets.writeAsService(workspaceId, rotation.accountId, rotation.secretId, token, value),

    /** The runner's side: the secret's ARN (the rotation event's SecretId) and the VersionId AWSCURRENT is on. */
    async rotationTarget(workspaceId: string, secretId: string) {
      const head = await secrets.head(workspaceId, secretId);
      if (!head) return undefined;
      return { arn: secretArn(deps.place, head), currentVersionId: versionIdOf(head, head.currentVersion) };
    },
  };
}

/** The runner's side of rotation, as rotation-runner.ts calls it. */
export type RotationSteps = ReturnType<typeof makeRotationSteps>;
