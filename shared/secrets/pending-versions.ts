import { systemAuditEntry, type AuditAction, type AuditEntry } from '../audit/index.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { SecretStore } from './secret-store.ts';
import { AWSPENDING, keepLabelled, labelsAfterWrite, labelsWithout, latestVersionOf, storedLabels } from './secret-labels.ts';
import { untilHeadWritten } from './head-retries.ts';
import { revisionAfter, VersionIdTakenError, VersionIdExistsError, type SecretRecord } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';

/**
 * The version model's side of a rotation (decisions.md v1.3, "Rotation"): its token recorded as a new version
 * labelled AWSPENDING with no value yet, and, when it ends, AWSPENDING taken off again with the outcome audited in the
 * same transaction. The rotation feature (shared/rotation/) decides when; the head's labels stay the secrets' own.
 */

const RETRIES = { attempts: 20, capMs: 500, stepMs: 8 };

/** A rotation's outcome as the service audits it by itself, in the transaction that takes AWSPENDING off. */
export interface PendingOutcome {
  accountId: string;
  action: AuditAction;
  /** Beside the secret's own metadata (its key, project and environment). */
  metadata: Record<string, unknown>;
  now: number;
}

/** The AWSPENDING version a rotation reserves and releases, over the secret's head. */
export function makePendingVersions(deps: { store: Pick<SecretStore, 'getSecretHead' | 'writeSecretVersion'> }) {
  const { store } = deps;

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
   * Takes AWSPENDING off the token's version (and the version goes if it never got a value), with the outcome audited
   * by the service itself in the same transaction.
   */
  async function releasePending(ws: string, secretId: string, token: string, outcome: PendingOutcome): Promise<void> {
    await changeHead(
      ws,
      secretId,
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
      (head) => systemAuditEntry(outcome.accountId, outcome.action, secretId, { ...metadataOf(head), ...outcome.metadata }, outcome.now),
    );
  }

  return { reservePending, releasePending };
}
