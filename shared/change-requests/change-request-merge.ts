import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { proposedValueContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ConflictError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import { metadataOf, type SecretStore } from '../secrets/index.ts';
import type { DeletePreparer } from '../secrets/index.ts';
import type { VersionWritePreparer } from '../secrets/index.ts';
import { assertMayMerge, assertStatus, permitChanges } from './change-request-checks.ts';
import {
  answerOf,
  ChangeRequestChangedError,
  requestMetadata,
  StaleChangesError,
  statusAt,
  untilUpdated,
  type ChangeRequestRecord,
  type StaleKey,
} from './change-request-records.ts';
import type { ChangeRequestStore, PreparedWrite } from './change-request-store.ts';

/** DynamoDB's limit of items in one TransactWriteItems, less one for an Idempotency-Key's record, which joins it. */
export const MAX_TRANSACTION_ITEMS = 99;

export interface MergeDeps {
  store: Pick<ChangeRequestStore, 'getChangeRequest' | 'updateChangeRequest'> & Pick<SecretStore, 'getEnvironmentSecret' | 'getSecretHead'>;
  cipher: Cipher;
  clock: Clock;
  /** The secrets feature's version writes, prepared for this transaction (shared/secrets, versionWritePreparer). */
  prepareWrite: VersionWritePreparer;
  /** The secrets feature's recoverable deletes, prepared for this transaction (shared/secrets, deletePreparer). */
  prepareDelete: DeletePreparer;
}

/** A merged delete keeps the secret restorable for the REST delete's default window (decisions.md, "Recoverable deletes"). */
const RECOVERY_WINDOW_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

type CurrentKeys = Map<string, Awaited<ReturnType<SecretStore['getEnvironmentSecret']>>>;

/** The merge of an approved request (decisions.md v1.4): every change in one transaction, or none. */
export function makeMerge(deps: MergeDeps, find: (principal: Principal, id: string) => Promise<ChangeRequestRecord>) {
  const { store, cipher, clock } = deps;

  /** Each key as it is now; StaleChangesError naming every key whose version is no longer its base version. */
  async function currentKeys(principal: Principal, request: ChangeRequestRecord): Promise<CurrentKeys> {
    const found = await Promise.all(
      request.changes.map(
        async (change) => [change.key, await store.getEnvironmentSecret(principal.workspaceId, request.environmentId, change.key)] as const,
      ),
    );
    const stale: StaleKey[] = request.changes
      .map((change, i) => ({ key: change.key, baseVersion: change.baseVersion, currentVersion: found[i]![1]?.currentVersion ?? 0 }))
      .filter((key) => key.currentVersion !== key.baseVersion);
    if (stale.length > 0) throw new StaleChangesError(stale);
    return new Map(found);
  }

  /** Each change's version write, its value unsealed from the request and sealed again as the key's next version. */
  async function prepare(
    principal: Principal,
    request: ChangeRequestRecord,
    currentKeys: CurrentKeys,
    now: number,
  ): Promise<PreparedWrite[]> {
    const ws = principal.workspaceId;
    const environment = {
      id: request.environmentId,
      projectId: request.projectId,
      projectSlug: request.projectSlug,
      slug: request.envSlug,
    };
    const actor = {
      workspaceId: ws,
      actorSub: principal.actorSub,
      audit: (action: 'secret.create' | 'secret.rotate', secret: Parameters<typeof metadataOf>[0], version: number) =>
        auditEntry(principal, action, secret.id, { ...metadataOf(secret), version, changeRequestId: request.id }, now),
    };
    return Promise.all(
      request.changes.map(async (change) => {
        const current = currentKeys.get(change.key);
        if (change.action === 'delete') return current ? prepareDelete(principal, request, current, now) : undefined;
        if (!change.sealed) throw new ConflictError(`the proposed value of ${change.key} is missing`);
        const value = await cipher.decrypt(change.sealed, proposedValueContext(ws, request.id, change.key));
        return deps.prepareWrite(actor, environment, current, { key: change.key, value, encoding: change.encoding, now });
      }),
    ).then((writes) => writes.filter((write) => write !== undefined));
  }

  /** A delete's items (a key already gone needs none): audited `secret.delete` as any delete, with changeRequestId. */
  async function prepareDelete(
    principal: Principal,
    request: ChangeRequestRecord,
    current: NonNullable<Awaited<ReturnType<SecretStore['getEnvironmentSecret']>>>,
    now: number,
  ): Promise<PreparedWrite> {
    const head = await store.getSecretHead(principal.workspaceId, current.id);
    // The head moved away since the key item was read: the transaction's condition on the key item names it.
    if (!head) throw new ChangeRequestChangedError();
    const purgeAt = iso(now + RECOVERY_WINDOW_DAYS * DAY_MS);
    const metadata = { ...metadataOf(head), recoveryWindowDays: RECOVERY_WINDOW_DAYS, purgeAt, changeRequestId: request.id };
    const entry = auditEntry(principal, 'secret.delete', head.id, metadata, now);
    const items = deps.prepareDelete(principal.workspaceId, head, entry, { deletedBy: principal.actorSub, purgeAt }, current);
    return { items, keyItemAt: 2, audit: entry };
  }

  /**
   * Merges: the author or a reviewer, with `write` on each key (`delete` on each it deletes), of an approved request. One transaction writes every
   * version (each audited as its write, with `changeRequestId`), the request's `merged` and its audit entry, and holds
   * only while each key is still at its base version: else CONFLICT naming the stale keys, and nothing changes.
   */
  async function merge(principal: Principal, id: string) {
    return untilUpdated(async () => {
      const request = await find(principal, id);
      assertMayMerge(principal, request);
      await permitChanges(principal, request, request.changes);
      const now = clock.now();
      assertStatus(statusAt(request, now), ['approved'], 'merged');
      const writes = await prepare(principal, request, await currentKeys(principal, request), now);
      const next: ChangeRequestRecord = { ...request, status: 'merged', updatedAt: iso(now), revision: request.revision + 1 };
      const entry = auditEntry(principal, 'change_request.merge', id, requestMetadata(next), now);
      // The request, its entry, one audit item per action of the writes (change-request-store.ts) and the writes' own.
      const actions = new Set(writes.map((write) => write.audit.action)).size;
      const items = 2 + actions + writes.reduce((sum, write) => sum + write.items.length, 0);
      if (items > MAX_TRANSACTION_ITEMS) throw new ConflictError(`The merge needs ${items} writes, more than one transaction holds`);
      const movedAt = await store.updateChangeRequest(principal.workspaceId, next, request, entry, writes);
      // A key moved between the read and the commit: read again, which names it (StaleChangesError).
      if (movedAt !== undefined) await currentKeys(principal, request);
      if (movedAt !== undefined) throw new ConflictError('The keys changed while merging; retry');
      return answerOf(next, now);
    });
  }

  return { merge };
}
