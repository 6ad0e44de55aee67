import { randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/index.ts';
import { iso } from '../platform/clock.ts';
import { ConflictError, ForbiddenError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { PasswordRules } from '../platform/random-password.ts';
import { metadataOf, type SecretRecord } from '../secrets/index.ts';
import { rotationAnswer } from './rotation-records.ts';
import { checkDuration, checkSchedule, DEFAULT_GENERATOR, nextRotationAt } from './rotation-schedule.ts';
import { makeRotationLease, type RotationServiceDeps } from './rotation-lease.ts';
import type { RotationConfig } from './rotation-store.ts';

export { STEP_LEASE_MS, type RotationServiceDeps } from './rotation-lease.ts';

/**
 * Rotation (decisions.md v1.3, "Rotation"): configuring it, turning it off and starting one now, each under `write`
 * on the secret (the policy asked first, through the secrets service's `forRotation`), and the records REST and the
 * AWS API show; the runner's side of the steps is rotation-steps.ts. The secret's versions and labels stay the secrets
 * feature's: a rotation reaches them only through shared/secrets/index.ts.
 */
export function makeRotationService(deps: RotationServiceDeps) {
  const { secrets, store, clock } = deps;
  const { begin, askScheduleSync } = makeRotationLease(deps);

  return {
    /**
     * The stored rotations of secrets the caller listed (the AWS API's ListSecrets shows them as DescribeSecret
     * does), by secret id; each secret's `read` is asked again, so one it may not read gets none.
     */
    async rotationRecords(principal: Principal, listed: readonly SecretRecord[]) {
      const readable = [];
      for (const secret of listed)
        if (
          await secrets.readable(principal, secret).then(
            () => true,
            () => false,
          )
        )
          readable.push(secret.id);
      return readable.length === 0 ? new Map() : store.getRotations(principal.workspaceId, readable);
    },

    /** A secret's stored rotation (the AWS API's DescribeSecret shows its rules as given); `read` as for the secret. */
    async rotationRecord(principal: Principal, secret: SecretRecord) {
      await secrets.readable(principal, secret);
      return store.getRotation(principal.workspaceId, secret.id);
    },

    /** Turns rotation on with this configuration, under `write`; audited `secret.rotation_configure`. Starts nothing. */
    async configureRotation(
      principal: Principal,
      secretId: string,
      config: Omit<RotationConfig, 'generator'> & { generator?: PasswordRules | null },
    ) {
      const head = await secrets.writableHead(principal, secretId);
      await checkSchedule(config.schedule, 'schedule');
      checkDuration(config.duration, 'duration');
      if (config.functionArn && !(await deps.functionAllowed(config.functionArn, principal.workspaceId)))
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
      await askScheduleSync(ws, head.id);
      return rotationAnswer({ ...rotation, lastRotatedAt: existing?.lastRotatedAt ?? null, lease: null });
    },

    /** Turns rotation off (CancelRotateSecret, REST DELETE), under `write`; a running rotation ends on its own. */
    async cancelRotation(principal: Principal, secretId: string) {
      const head = await secrets.writableHead(principal, secretId);
      const ws = principal.workspaceId;
      const existing = await store.getRotation(ws, head.id);
      if (!existing) return null;
      const { lease: _lease, lastRotatedAt, ...rest } = existing;
      const audit = auditEntry(principal, 'secret.rotation_configure', head.id, { ...metadataOf(head), enabled: false }, clock.now());
      await store.putRotation(ws, { ...rest, enabled: false, nextRotationAt: null }, audit);
      await askScheduleSync(ws, head.id);
      return rotationAnswer({ ...existing, enabled: false, nextRotationAt: null });
    },

    /**
     * Starts a rotation now (RotateSecret, REST POST …/rotate), under `write`: CONFLICT when rotation is not configured
     * or one is running. Audited `secret.rotation_start` by the caller. Answers the token, the VersionId of the version
     * it makes.
     */
    async startRotation(principal: Principal, secretId: string, token: string = randomUUID()) {
      const head = await secrets.writableHead(principal, secretId);
      const rotation = await store.getRotation(principal.workspaceId, head.id);
      if (!rotation?.enabled) throw new ConflictError('rotation: not configured for this secret; PUT …/rotation first');
      return begin(principal.workspaceId, rotation, token, principal);
    },
  };
}

/** The rotation service: REST's rotation routes, the AWS API's RotateSecret and its kin, and the runner call it. */
export type RotationService = ReturnType<typeof makeRotationService>;
