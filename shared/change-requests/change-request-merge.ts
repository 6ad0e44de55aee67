import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { proposedValueContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ConflictError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import { metadataOf, type SecretStore, type VersionWritePreparer } from '../secrets/index.ts';
import { assertMayMerge, assertStatus, permitKeys } from './change-request-checks.ts';
import {
  answerOf,
  requestMetadata,
  StaleChangesError,
  statusAt,
  untilUpdated,
  type ChangeRequestRecord,
  type StaleKey,
} from './change-request-records.ts';
import type { ChangeRequestStore, PreparedWrite } from './change-request-store.ts';

/** DynamoDB's limit of items in one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

export interface MergeDeps {
  store: Pick<ChangeRequestStore, 'getChangeRequest' | 'updateChangeRequest'> & Pick<SecretStore, 'getEnvironmentSecret'>;
  cipher: Cipher;
  clock: Clock;
  /** The secrets feature's version writes, prepared for this transaction (shared/secrets, versionWritePreparer). */
  prepareWrite: VersionWritePreparer;
}

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
  async function prepare(principal: Principal, request: ChangeRequestRecord, current: CurrentKeys, now: number): Promise<PreparedWrite[]> {
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
        if (change.action === 'delete' || !change.sealed)
          throw new ConflictError(`merging the delete of ${change.key} is not supported yet`);
        const value = await cipher.decrypt(change.sealed, proposedValueContext(ws, request.id, change.key));
        return deps.prepareWrite(actor, environment, current.get(change.key), { key: change.key, value, encoding: change.encoding, now });
      }),
    );
  }

  /**
   * Merges: the author or a reviewer, with `write` on each key, of an approved request. One transaction writes every
   * version (each audited as its write, with `changeRequestId`), the request's `merged` and its audit entry, and holds
   * only while each key is still at its base version: else CONFLICT naming the stale keys, and nothing changes.
   */
  async function merge(principal: Principal, id: string) {
    return untilUpdated(async () => {
      const request = await find(principal, id);
      assertMayMerge(principal, request);
      await permitKeys(
        principal,
        request,
        'write',
        request.changes.map((change) => change.key),
      );
      const now = clock.now();
      assertStatus(statusAt(request, now), ['approved'], 'merged');
      const writes = await prepare(principal, request, await currentKeys(principal, request), now);
      const next: ChangeRequestRecord = { ...request, status: 'merged', updatedAt: iso(now), revision: request.revision + 1 };
      const entry = auditEntry(principal, 'change_request.merge', id, requestMetadata(next), now);
      const items = 2 + writes.reduce((sum, write) => sum + write.items.length, 0);
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
