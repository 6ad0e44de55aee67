import { randomUUID } from 'node:crypto';
import { auditEntry, SYSTEM_ACTOR } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { PasswordRules } from '../platform/random-password.ts';
import type { Store } from '../store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import { latestVersionOf } from './secret-labels.ts';
import type { SecretRecord } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';
import { makeRotationHead } from './rotation-head.ts';
import { rotationFunctionsAllowed, type RotationFunctionAllowed } from '../rotation/rotation-functions.ts';
import { secretArn, versionIdOf, type AwsPlace } from './secret-names.ts';
import type { makeSecretWriter } from './secret-writer.ts';

type SecretWriter = ReturnType<typeof makeSecretWriter>;
import { rotationAnswer, type RotationMessage, type RotationQueue } from '../rotation/rotation-records.ts';
import type { RotationSchedules } from '../rotation/rotation-schedules.ts';
import {
  RotationBusyError,
  SCHEDULED_START,
  type RotationConfig,
  type RotationStore,
  type StoredRotation,
} from '../rotation/rotation-store.ts';
import { checkDuration, checkSchedule, DEFAULT_GENERATOR, nextRotationAt } from '../rotation/rotation-schedule.ts';

/**
 * Rotation as the secrets feature keeps it (decisions.md v1.3, "Rotation"): configuring it and starting one, under
 * `write` (the policy asked first, through the guard), and the changes of the head a rotation makes on its own: its
 * token recorded as a version labelled AWSPENDING with no value yet, and AWSPENDING taken off again when it ends.
 * The runner (shared/rotation/) drives the steps; a message on the rotation queue carries each one.
 */

/** How long a step may hold the lease: AWS's 5 minutes a step, and a minute for the runner around it. */
export const STEP_LEASE_MS = 6 * 60_000;

export interface SecretRotationDeps {
  store: Pick<Store, 'getSecretHead' | 'writeSecretVersion'> & RotationStore;
  clock: Clock;
  place: AwsPlace;
  /** The writer's loop (secret-writer.ts): a rotation without a function writes its value through it. */
  writeNext: SecretWriter['writeNext'];
  /** Where the steps go; absent where no rotation can be started (the AWS API's GetSecretValue container). */
  queue?: RotationQueue | undefined;
  /** The recurring schedules that start rotations (absent where schedules are not configured). */
  schedules?: RotationSchedules | undefined;
  /** Whether the stack may invoke a rotation function for a workspace (default: rotation-functions.ts over the environment). */
  functionAllowed?: RotationFunctionAllowed;
}

export function makeSecretRotation(deps: SecretRotationDeps, guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>) {
  const { store, clock } = deps;

  /** The head of a secret the caller may write (NOT_FOUND / FORBIDDEN as for a write), read strongly consistent. */
  async function writable(principal: Principal, secretId: string) {
    const head = await guard.readable(principal, await store.getSecretHead(principal.workspaceId, secretId), secretId);
    await guard.permit(principal, 'write', head);
    return head;
  }

  const { reservePending, finish } = makeRotationHead(deps);
  const functionAllowed = deps.functionAllowed ?? rotationFunctionsAllowed();

  /**
   * Asks the runner to make the secret's schedule match its rotation item (put while on, deleted when off): the API
   * functions carry no Scheduler client, and a lost or repeated message converges all the same.
   */
  async function syncSchedule(workspaceId: string, secretId: string) {
    if (!deps.queue) throw new Error('no rotation queue in this function');
    await deps.queue.send({ workspaceId, secretId, token: '', step: 'schedule' });
  }

  /**
   * Starts a rotation of the secret: the lease (naming who started it, for the outcome's `startedBy`), the AWSPENDING
   * version, the first step queued. A caller's start is audited `secret.rotation_start` in the lease's transaction,
   * so it is durable before the start is answered; a schedule's start is told by its outcome alone.
   */
  async function begin(ws: string, rotation: StoredRotation, token: string, starter: Principal | typeof SCHEDULED_START) {
    if (!deps.queue) throw new Error('no rotation queue in this function');
    const now = clock.now();
    const head = await store.getSecretHead(ws, rotation.secretId);
    if (!head) throw new NotFoundError(`secret ${rotation.secretId} was not found`);
    const step = rotation.functionArn ? 'createSecret' : 'generate';
    const startedBy = starter === SCHEDULED_START ? SCHEDULED_START : starter.actorSub;
    const lease = { token, version: latestVersionOf(head) + 1, step, until: now + STEP_LEASE_MS, startedBy };
    const audit =
      starter === SCHEDULED_START
        ? undefined
        : auditEntry(
            starter,
            'secret.rotation_start',
            head.id,
            { ...metadataOf(head), versionId: token, function: rotation.functionArn },
            now,
          );
    try {
      await store.takeRotationLease(ws, rotation.secretId, lease, now, audit);
    } catch (error) {
      if (error instanceof RotationBusyError) throw new ConflictError('rotation: this secret is rotating already; wait for it to end');
      throw error;
    }
    try {
      await reservePending(ws, rotation.secretId, token);
      await deps.queue.send({ workspaceId: ws, secretId: rotation.secretId, token, step });
    } catch (error) {
      const failed = { ok: false as const, step, error: 'the rotation could not be started' };
      await finish(ws, { ...rotation, lease }, token, failed).catch(() => undefined);
      throw error;
    }
    return { versionId: token };
  }

  return {
    /** A secret's rotation as REST's `rotation` shows it (null when none was configured); `read` as for the secret. */
    async rotationOf(principal: Principal, secret: SecretRecord) {
      await guard.readable(principal, secret, secret.id);
      return rotationAnswer(await store.getRotation(principal.workspaceId, secret.id));
    },

    /**
     * The stored rotations of secrets the caller listed (the AWS API's ListSecrets shows them as DescribeSecret
     * does), by secret id; each secret's `read` is asked again, so one it may not read gets none.
     */
    async rotationRecords(principal: Principal, secrets: readonly SecretRecord[]) {
      const readable = [];
      for (const secret of secrets)
        if (
          await guard.readable(principal, secret, secret.id).then(
            () => true,
            () => false,
          )
        )
          readable.push(secret.id);
      return readable.length === 0 ? new Map() : store.getRotations(principal.workspaceId, readable);
    },

    /** A secret's stored rotation (the AWS API's DescribeSecret shows its rules as given); `read` as for the secret. */
    async rotationRecord(principal: Principal, secret: SecretRecord) {
      await guard.readable(principal, secret, secret.id);
      return store.getRotation(principal.workspaceId, secret.id);
    },

    /** Turns rotation on with this configuration, under `write`; audited `secret.rotation_configure`. Starts nothing. */
    async configureRotation(
      principal: Principal,
      secretId: string,
      config: Omit<RotationConfig, 'generator'> & { generator?: PasswordRules | null },
    ) {
      const head = await writable(principal, secretId);
      await checkSchedule(config.schedule, 'schedule');
      checkDuration(config.duration, 'duration');
      if (config.functionArn && !(await functionAllowed(config.functionArn, principal.workspaceId)))
        throw new ForbiddenError(`function: this stack may not invoke ${config.functionArn} (rotationFunctionArns)`);
      const ws = principal.workspaceId;
      const existing = await store.getRotation(ws, head.id);
      const configuredAt = iso(clock.now());
      const generator = config.functionArn ? null : { ...DEFAULT_GENERATOR, ...config.generator };
      const rotation = {
        secretId: head.id,
        accountId: principal.accountId,
        enabled: true,
        ...config,
        generator,
        configuredAt,
        nextRotationAt: await nextRotationAt(config.schedule, existing?.lastRotatedAt ?? configuredAt),
      };
      const audit = auditEntry(
        principal,
        'secret.rotation_configure',
        head.id,
        { ...metadataOf(head), enabled: true, function: config.functionArn, schedule: config.schedule, duration: config.duration },
        clock.now(),
      );
      await store.putRotation(ws, rotation, audit);
      await syncSchedule(ws, head.id);
      return rotationAnswer({ ...rotation, lastRotatedAt: existing?.lastRotatedAt ?? null, lease: null });
    },

    /** Turns rotation off (CancelRotateSecret, REST DELETE), under `write`; a running rotation ends on its own. */
    async cancelRotation(principal: Principal, secretId: string) {
      const head = await writable(principal, secretId);
      const ws = principal.workspaceId;
      const existing = await store.getRotation(ws, head.id);
      if (!existing) return null;
      const { lease: _lease, lastRotatedAt, ...rest } = existing;
      const audit = auditEntry(principal, 'secret.rotation_configure', head.id, { ...metadataOf(head), enabled: false }, clock.now());
      await store.putRotation(ws, { ...rest, enabled: false, nextRotationAt: null }, audit);
      await syncSchedule(ws, head.id);
      return rotationAnswer({ ...existing, enabled: false, nextRotationAt: null });
    },

    /**
     * Starts a rotation now (RotateSecret, REST POST …/rotate), under `write`: CONFLICT when rotation is not configured
     * or one is running. Audited `secret.rotation_start` by the caller. Answers the token, the VersionId of the version
     * it makes.
     */
    async startRotation(principal: Principal, secretId: string, token: string = randomUUID()) {
      const head = await writable(principal, secretId);
      const rotation = await store.getRotation(principal.workspaceId, head.id);
      if (!rotation?.enabled) throw new ConflictError('rotation: not configured for this secret; PUT …/rotation first');
      return begin(principal.workspaceId, rotation, token, principal);
    },

    /** The runner's side: makes the secret's schedule what its rotation item says (put while on, gone otherwise). */
    async syncRotationSchedule(workspaceId: string, secretId: string) {
      if (!deps.schedules) return;
      const rotation = await store.getRotation(workspaceId, secretId);
      const live = rotation?.enabled && (await store.getSecretHead(workspaceId, secretId));
      if (live) await deps.schedules.put(workspaceId, secretId, rotation.schedule, rotation.duration);
      else await deps.schedules.remove(secretId);
    },

    /** The runner's side: a scheduled start (the service acting on its own). */
    async startScheduledRotation(workspaceId: string, secretId: string) {
      const rotation = await store.getRotation(workspaceId, secretId);
      if (!rotation?.enabled) return undefined;
      // A deleted secret's schedule goes with its first start after the delete.
      if (!(await store.getSecretHead(workspaceId, secretId))) {
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

    /**
     * The runner's side: whether it may invoke `arn` for the workspace, asked before each invocation; the same decision
     * as the configuration's (rotation-functions.ts), so `${workspaceId}` in a pattern means the same in both.
     */
    rotationFunctionAllowed: (workspaceId: string, arn: string) => functionAllowed(arn, workspaceId),

    /** The runner's side: the rotation a step's message belongs to, when its token still holds the lease. */
    async rotationHeldBy(workspaceId: string, secretId: string, token: string) {
      const rotation = await store.getRotation(workspaceId, secretId);
      return rotation?.lease?.token === token ? rotation : undefined;
    },

    /** The runner's side: moves the lease to the next step and queues it. */
    async nextRotationStep(message: RotationMessage) {
      if (!deps.queue) throw new Error('no rotation queue in this function');
      const held = await store.advanceRotationLease(
        message.workspaceId,
        message.secretId,
        message.token,
        message.step,
        clock.now() + STEP_LEASE_MS,
      );
      if (held) await deps.queue.send(message);
    },

    finishRotation: finish,

    /**
     * The runner's side, for a rotation without a function: writes `value` as the token's version and makes it
     * AWSCURRENT, audited `secret.rotate` by the service itself (so `service.secret.rotate` tells consumers).
     */
    async writeRotatedValue(rotation: StoredRotation, workspaceId: string, token: string, value: string) {
      const head = await store.getSecretHead(workspaceId, rotation.secretId);
      if (!head) throw new NotFoundError(`secret ${rotation.secretId} was not found`);
      // The service acting on its own: no credential, so the audit entry names none.
      const system = { workspaceId, accountId: rotation.accountId, actorSub: SYSTEM_ACTOR } as unknown as Principal;
      const environment = { id: head.environmentId, projectId: head.projectId, projectSlug: head.projectSlug, slug: head.envSlug };
      return deps.writeNext(system, environment, { key: head.key, value }, { versionId: token, secretId: head.id });
    },

    /** The runner's side: the secret's ARN (the rotation event's SecretId) and the VersionId AWSCURRENT is on. */
    async rotationTarget(workspaceId: string, secretId: string) {
      const head = await store.getSecretHead(workspaceId, secretId);
      if (!head) return undefined;
      return { arn: secretArn(deps.place, head), currentVersionId: versionIdOf(head, head.currentVersion) };
    },
  };
}
