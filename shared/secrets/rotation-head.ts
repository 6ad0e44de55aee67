import { systemAuditEntry, type AuditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Store } from '../store.ts';
import { AWSPENDING, keepLabelled, labelsAfterWrite, labelsWithout, latestVersionOf, storedLabels } from './secret-labels.ts';
import { untilHeadWritten } from './head-retries.ts';
import { revisionAfter, VersionIdTakenError, VersionIdExistsError, type SecretRecord } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';
import { SCHEDULED_START, type RotationStore, type StoredRotation } from '../rotation/rotation-store.ts';
import { nextRotationAt } from '../rotation/rotation-schedule.ts';

/**
 * What a rotation changes on a secret's head by itself (decisions.md v1.3, "Rotation"): its token recorded as a new
 * version labelled AWSPENDING with no value yet, and, when it ends, AWSPENDING taken off again with the outcome audited
 * in the same transaction; then the lease released with when it last and next rotates.
 */

const RETRIES = { attempts: 20, capMs: 500, stepMs: 8 };

export function makeRotationHead(deps: { store: Pick<Store, 'getSecretHead' | 'writeSecretVersion'> & RotationStore; clock: Clock }) {
  const { store, clock } = deps;

  /** Changes the head with `change` (reading again after a lost race), with `audit` in the same transaction. */
  async function changeHead(
    ws: string,
    secretId: string,
    change: (head: SecretRecord) => Partial<SecretRecord> | undefined,
    audit: (head: SecretRecord) => AuditEntry | undefined,
    reserve?: (head: SecretRecord) => { versionId: string; number: number },
  ) {
    return untilHeadWritten(secretId, RETRIES, async () => {
      const head = await store.getSecretHead(ws, secretId);
      if (!head) throw new NotFoundError(`secret ${secretId} was not found`);
      const changed = change(head);
      if (!changed) return head;
      const { sealed, ...current } = head;
      const next: SecretRecord = { ...current, ...changed, revision: revisionAfter(head) };
      for (const field of ['labels', 'versionIds', 'unfilled', 'latestVersion'] as const) if (next[field] === undefined) delete next[field];
      try {
        await store.writeSecretVersion(ws, { ...next, sealed }, head, null, audit(head), reserve?.(head));
      } catch (error) {
        if (error instanceof VersionIdTakenError)
          throw new VersionIdExistsError('ClientRequestToken: already names a version of this secret');
        throw error;
      }
      return next;
    });
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
          labels: storedLabels(state),
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

  /**
   * Ends the rotation `token` holds: AWSPENDING off its version (and the version gone if it never got a value), the
   * outcome audited in the same transaction (`secret.rotation_succeeded`, or `secret.rotation_failed` with the step and
   * the error cut to 500 characters, whose event is `service.secret.rotation_failed`; both with `startedBy`, the lease's
   * starter), then the lease released.
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
          // Stored with AWSCURRENT, so never empty: a head without labels reads as one written before them (secret-labels.ts).
          labels: storedLabels(state),
          unfilled: unfilled.length ? unfilled : undefined,
          versionIds: keepLabelled<string>(head.versionIds, state),
        };
      },
      (head) =>
        systemAuditEntry(
          rotation.accountId,
          outcome.ok ? 'secret.rotation_succeeded' : 'secret.rotation_failed',
          rotation.secretId,
          {
            ...metadataOf(head),
            versionId: token,
            startedBy: rotation.lease?.startedBy ?? SCHEDULED_START,
            ...(!outcome.ok && { step: outcome.step, error: outcome.error.slice(0, 500) }),
          },
          now,
        ),
    );
    const since = outcome.ok ? iso(now) : (rotation.lastRotatedAt ?? rotation.configuredAt);
    await store.endRotationLease(ws, rotation.secretId, token, {
      ...(outcome.ok && { lastRotatedAt: iso(now) }),
      nextRotationAt: await nextRotationAt(rotation.schedule, since),
    });
  }

  return { reservePending, finish };
}
