import { randomUUID } from 'node:crypto';
import { auditEntry, systemAuditEntry, SYSTEM_ACTOR, type AuditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { PasswordRules } from '../platform/random-password.ts';
import type { Store } from '../store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import { AWSPENDING, keepLabelled, labelsAfterWrite, labelsWithout, latestVersionOf } from './secret-labels.ts';
import { revisionAfter, VersionConflictError, VersionIdTakenError, VersionIdExistsError, type SecretRecord } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';
import { LOCAL_PLACE, secretArn, versionIdOf, type AwsPlace } from './secret-names.ts';
import type { makeSecretWriter } from './secret-writer.ts';

type SecretWriter = ReturnType<typeof makeSecretWriter>;
import { rotationAnswer, type RotationMessage, type RotationQueue } from './rotation-records.ts';
import { RotationBusyError, type RotationConfig, type RotationStore, type StoredRotation } from './rotation-store.ts';
import { checkDuration, DEFAULT_GENERATOR, intervalOf, nextRotationAt } from './rotation-schedule.ts';

/**
 * Rotation as the secrets feature keeps it (decisions.md v1.3, "Rotation"): configuring it and starting one, under
 * `write` (the policy asked first, through the guard), and the changes of the head a rotation makes on its own: its
 * token recorded as a version labelled AWSPENDING with no value yet, and AWSPENDING taken off again when it ends.
 * The runner (shared/rotation/) drives the steps; a message on the rotation queue carries each one.
 */

/** How long a step may hold the lease: AWS's 5 minutes a step, and a minute for the runner around it. */
export const STEP_LEASE_MS = 6 * 60_000;
const ATTEMPTS = 20;

export interface SecretRotationDeps {
  store: Pick<Store, 'getSecretHead' | 'writeSecretVersion'> & RotationStore;
  clock: Clock;
  place?: AwsPlace | undefined;
  /** The writer's loop (secret-writer.ts): a rotation without a function writes its value through it. */
  writeNext: SecretWriter['writeNext'];
  /** Where the steps go; absent where no rotation can be started (the AWS API's GetSecretValue container). */
  queue?: RotationQueue | undefined;
}

const backOff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 8 * 2 ** attempt)));
export function makeSecretRotation(deps: SecretRotationDeps, guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>) {
  const { store, clock } = deps;

  /** The head of a secret the caller may write (NOT_FOUND / FORBIDDEN as for a write), read strongly consistent. */
  async function writable(principal: Principal, secretId: string) {
    const head = await guard.readable(principal, await store.getSecretHead(principal.workspaceId, secretId), secretId);
    await guard.permit(principal, 'write', head);
    return head;
  }

  /** Changes the head with `change` (reading again after a lost race), with `audit` in the same transaction. */
  async function changeHead(
    ws: string,
    secretId: string,
    change: (head: SecretRecord) => Partial<SecretRecord> | undefined,
    audit: (head: SecretRecord) => AuditEntry | undefined,
    reserve?: (head: SecretRecord) => { versionId: string; number: number },
  ) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const head = await store.getSecretHead(ws, secretId);
      if (!head) throw new NotFoundError(`secret ${secretId} was not found`);
      const changed = change(head);
      if (!changed) return head;
      const { sealed, ...current } = head;
      const next: SecretRecord = { ...current, ...changed, revision: revisionAfter(head) };
      for (const field of ['labels', 'versionIds', 'unfilled', 'latestVersion'] as const) if (next[field] === undefined) delete next[field];
      try {
        await store.writeSecretVersion(ws, { ...next, sealed }, head, null, audit(head), reserve?.(head));
        return next;
      } catch (error) {
        if (error instanceof VersionIdTakenError)
          throw new VersionIdExistsError('ClientRequestToken: already names a version of this secret');
        if (!(error instanceof VersionConflictError)) throw error;
        await backOff(attempt);
      }
    }
    throw new ConflictError(`secret ${secretId}: too many concurrent changes; retry`);
  }

  /** Records the token as a new version labelled AWSPENDING, with no value yet (the number after the highest). */
  async function reservePending(ws: string, secretId: string, token: string) {
    let number = 0;
    await changeHead(
      ws,
      secretId,
      (head) => {
        number = latestVersionOf(head) + 1;
        const state = labelsAfterWrite(head, number, [AWSPENDING]);
        return {
          labels: state.labels,
          latestVersion: number,
          unfilled: [...(head.unfilled ?? []).filter((version) => keepLabelled({ [version]: true }, state)), number],
          versionIds: keepLabelled<string>({ ...head.versionIds, [String(number)]: token }, state),
        };
      },
      () => undefined,
      () => ({ versionId: token, number }),
    );
    return number;
  }

  /** Starts a rotation of the secret: the lease, the AWSPENDING version, the first step queued. */
  async function begin(ws: string, rotation: StoredRotation, token: string, startedBy: string) {
    if (!deps.queue) throw new Error('no rotation queue in this function');
    const now = clock.now();
    const head = await store.getSecretHead(ws, rotation.secretId);
    if (!head) throw new NotFoundError(`secret ${rotation.secretId} was not found`);
    const step = rotation.functionArn ? 'createSecret' : 'generate';
    try {
      await store.takeRotationLease(
        ws,
        rotation.secretId,
        { token, version: latestVersionOf(head) + 1, step, until: now + STEP_LEASE_MS, startedBy },
        now,
      );
    } catch (error) {
      if (error instanceof RotationBusyError) throw new ConflictError('rotation: this secret is rotating already; wait for it to end');
      throw error;
    }
    try {
      await reservePending(ws, rotation.secretId, token);
      await deps.queue.send({ workspaceId: ws, secretId: rotation.secretId, token, step });
    } catch (error) {
      await finish(ws, rotation, token, { ok: false, step, error: 'the rotation could not be started' }).catch(() => undefined);
      throw error;
    }
    return { versionId: token };
  }

  /**
   * Ends the rotation `token` holds: AWSPENDING off its version (and the version gone if it never got a value), the
   * outcome audited in the same transaction (`secret.rotation_succeeded`, or `secret.rotation_failed` with the step and
   * the error cut to 500 characters, whose event is `service.secret.rotation_failed`), then the lease released.
   */
  async function finish(
    ws: string,
    rotation: StoredRotation,
    token: string,
    outcome: { ok: true } | { ok: false; step: string; error: string },
  ): Promise<void> {
    const now = clock.now();
    await changeHead(
      ws,
      rotation.secretId,
      (head) => {
        const version = Object.entries(head.versionIds ?? {}).find(([, id]) => id === token)?.[0];
        if (version === undefined) return {};
        const state = labelsWithout(head, AWSPENDING, Number(version));
        const unfilled = (head.unfilled ?? []).filter((number) => keepLabelled({ [number]: true }, state));
        return {
          // Stored even when empty: a head without labels reads as one written before them (secret-labels.ts).
          labels: state.labels,
          unfilled: unfilled.length ? unfilled : undefined,
          versionIds: keepLabelled<string>(head.versionIds, state),
        };
      },
      (head) =>
        systemAuditEntry(
          rotation.accountId,
          outcome.ok ? 'secret.rotation_succeeded' : 'secret.rotation_failed',
          rotation.secretId,
          { ...metadataOf(head), versionId: token, ...(!outcome.ok && { step: outcome.step, error: outcome.error.slice(0, 500) }) },
          now,
        ),
    );
    const since = outcome.ok ? iso(now) : (rotation.lastRotatedAt ?? rotation.configuredAt);
    await store.endRotationLease(ws, rotation.secretId, token, {
      ...(outcome.ok && { lastRotatedAt: iso(now) }),
      nextRotationAt: nextRotationAt(rotation.schedule, since),
    });
  }

  return {
    /** A secret's rotation as REST's `rotation` shows it (null when none was configured); `read` as for the secret. */
    async rotationOf(principal: Principal, secret: SecretRecord) {
      await guard.readable(principal, secret, secret.id);
      return rotationAnswer(await store.getRotation(principal.workspaceId, secret.id));
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
      intervalOf(config.schedule, 'schedule');
      checkDuration(config.duration, 'duration');
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
        nextRotationAt: nextRotationAt(config.schedule, existing?.lastRotatedAt ?? configuredAt),
      };
      const audit = auditEntry(
        principal,
        'secret.rotation_configure',
        head.id,
        { ...metadataOf(head), enabled: true, function: config.functionArn, schedule: config.schedule, duration: config.duration },
        clock.now(),
      );
      await store.putRotation(ws, rotation, audit);
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
      return rotationAnswer({ ...existing, enabled: false, nextRotationAt: null });
    },

    /**
     * Starts a rotation now (RotateSecret, REST POST …/rotate), under `write`: CONFLICT when rotation is not configured
     * or one is running. Answers the token, the VersionId of the version it makes.
     */
    async startRotation(principal: Principal, secretId: string, token: string = randomUUID()) {
      const head = await writable(principal, secretId);
      const rotation = await store.getRotation(principal.workspaceId, head.id);
      if (!rotation?.enabled) throw new ConflictError('rotation: not configured for this secret; PUT …/rotation first');
      return begin(principal.workspaceId, rotation, token, principal.actorSub);
    },

    /** The runner's side: a scheduled start (the service acting on its own). */
    async startScheduledRotation(workspaceId: string, secretId: string) {
      const rotation = await store.getRotation(workspaceId, secretId);
      if (!rotation?.enabled) return undefined;
      return begin(workspaceId, rotation, randomUUID(), SYSTEM_ACTOR);
    },

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
      return { arn: secretArn(deps.place ?? LOCAL_PLACE, head), currentVersionId: versionIdOf(head, head.currentVersion) };
    },
  };
}
