import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import { latestVersionOf, metadataOf, type AwsPlace, type SecretsForRotation } from '../secrets/index.ts';
import type { RotationFunctionAllowed } from './rotation-functions.ts';
import type { RotationQueue, RotationSchedules } from './rotation-records.ts';
import { nextRotationAt } from './rotation-schedule.ts';
import { RotationBusyError, SCHEDULED_START, type RotationStore, type StoredRotation } from './rotation-store.ts';

/**
 * A rotation's lease (decisions.md v1.3, "Rotation": one rotation of a secret at a time): a start takes it, reserves
 * the AWSPENDING version (secrets' version model, through shared/secrets/index.ts) and queues the first step; the end
 * takes AWSPENDING off with the outcome audited and releases it. Both the rotation service (a caller's start) and the
 * runner's side (a schedule's start, each step's end: rotation-steps.ts) use it.
 */

/** How long a step may hold the lease: AWS's 5 minutes a step, and a minute for the runner around it. */
export const STEP_LEASE_MS = 6 * 60_000;

export interface RotationServiceDeps {
  /** The secrets service's side of rotation (its `forRotation`): the policy, the head, the AWSPENDING version. */
  secrets: SecretsForRotation;
  store: RotationStore;
  clock: Clock;
  /** The stack's region and account, which the rotation event's SecretId (the secret's ARN) names. */
  place: AwsPlace;
  /** Where the steps go; absent where no rotation can be started (the AWS API's GetSecretValue container). */
  queue?: RotationQueue | undefined;
  /** The recurring schedules that start rotations (absent where schedules are not configured). */
  schedules?: RotationSchedules | undefined;
  /** Whether the stack may invoke a rotation function for a workspace (the one decision: rotation-functions.ts). */
  functionAllowed: RotationFunctionAllowed;
}

type Outcome = { ok: true } | { ok: false; step: string; error: string };

/** The start and the end of a rotation, and the queue its steps and schedule requests go to. */
export function makeRotationLease(deps: RotationServiceDeps) {
  const { secrets, store, clock } = deps;

  const queue = () => {
    if (!deps.queue) throw new Error('no rotation queue in this function');
    return deps.queue;
  };

  /**
   * Ends the rotation `token` holds: AWSPENDING off its version, the outcome audited in the same transaction
   * (`secret.rotation_succeeded`, or `secret.rotation_failed` with the step and the error cut to 500 characters, whose
   * event is `service.secret.rotation_failed`; both with `startedBy`, the lease's starter), then the lease released
   * with when it last and next rotates.
   */
  async function finish(ws: string, rotation: StoredRotation, token: string, outcome: Outcome): Promise<void> {
    const now = clock.now();
    await secrets.releasePending(ws, rotation.secretId, token, {
      accountId: rotation.accountId,
      action: outcome.ok ? 'secret.rotation_succeeded' : 'secret.rotation_failed',
      metadata: {
        versionId: token,
        startedBy: rotation.lease?.startedBy ?? SCHEDULED_START,
        ...(!outcome.ok && { step: outcome.step, error: outcome.error.slice(0, 500) }),
      },
      now,
    });
    const since = outcome.ok ? iso(now) : (rotation.lastRotatedAt ?? rotation.configuredAt);
    await store.endRotationLease(ws, rotation.secretId, token, {
      ...(outcome.ok && { lastRotatedAt: iso(now) }),
      nextRotationAt: await nextRotationAt(rotation.schedule, since),
    });
  }

  /**
   * Starts a rotation of the secret: the lease (naming who started it, for the outcome's `startedBy`), the AWSPENDING
   * version, the first step queued. A caller's start is audited `secret.rotation_start` in the lease's transaction,
   * so it is durable before the start is answered; a schedule's start is told by its outcome alone.
   */
  async function begin(ws: string, rotation: StoredRotation, token: string, starter: Principal | typeof SCHEDULED_START) {
    const sender = queue();
    const now = clock.now();
    const head = await secrets.head(ws, rotation.secretId);
    if (!head) throw new NotFoundError(`secret ${rotation.secretId} was not found`);
    const step = rotation.functionArn ? 'createSecret' : 'generate';
    const startedBy = starter === SCHEDULED_START ? SCHEDULED_START : starter.actorSub;
    const lease = { token, version: latestVersionOf(head) + 1, step, until: now + STEP_LEASE_MS, startedBy };
    const metadata = { ...metadataOf(head), versionId: token, function: rotation.functionArn };
    const audit = starter === SCHEDULED_START ? undefined : auditEntry(starter, 'secret.rotation_start', head.id, metadata, now);
    try {
      await store.takeRotationLease(ws, rotation.secretId, lease, now, audit);
    } catch (error) {
      if (error instanceof RotationBusyError) throw new ConflictError('rotation: this secret is rotating already; wait for it to end');
      throw error;
    }
    try {
      await secrets.reservePending(ws, rotation.secretId, token);
      await sender.send({ workspaceId: ws, secretId: rotation.secretId, token, step });
    } catch (error) {
      const failed = { ok: false as const, step, error: 'the rotation could not be started' };
      await finish(ws, { ...rotation, lease }, token, failed).catch(() => undefined);
      throw error;
    }
    return { versionId: token };
  }

  return {
    begin,
    finish,

    /**
     * Asks the runner to make the secret's schedule match its rotation item (put while on, deleted when off): the API
     * functions carry no Scheduler client, and a lost or repeated message converges all the same.
     */
    askScheduleSync: (workspaceId: string, secretId: string) => queue().send({ workspaceId, secretId, token: '', step: 'schedule' }),
  };
}
