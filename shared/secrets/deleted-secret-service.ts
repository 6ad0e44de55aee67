import { auditEntry } from '../audit/index.ts';
import type { Principal } from '../platform/principal.ts';
import type { Clock } from '../platform/clock.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import type { DeletedSecret, SecretRecord } from './secret-record.ts';
import type { SecretStore } from './secret-store.ts';
import type { DeletedSecretStore } from './deleted-secret-store.ts';
import type { DenialStore } from '../access/index.ts';
import type { ProjectStore } from '../workspaces/index.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { makeSecretGuard, targetOf } from './secret-guard.ts';
import { SECRET_PATH } from './secret-reveals.ts';
import { makeReviewGate } from './review-gate.ts';

export type DeletedSecretServiceStore = Pick<SecretStore, 'getSecretByPath'> &
  Pick<
    DeletedSecretStore,
    | 'listDeletedSecrets'
    | 'getDeletedSecret'
    | 'getDeletedSecretByPath'
    | 'restoreSecret'
    | 'listSecretsWithDeleted'
    | 'indexDeletedSecrets'
  > &
  Pick<DenialStore, 'recordDenial'> &
  Pick<ProjectStore, 'getEnvironment'>;

/**
 * The recovery window of deleted secrets (decisions.md, "Recoverable deletes"): an environment's deleted secrets,
 * which need `read`, and restore, which needs `delete` on the secret. What the caller may not read, or what is past
 * its `purgeAt`, does not exist for it.
 */
export function makeDeletedSecretService({ store, clock }: { store: DeletedSecretServiceStore; clock: Clock }) {
  const { readable, visibleEnvironment, permit } = makeSecretGuard(store, clock);
  const reviewGate = makeReviewGate(store);
  return {
    /** Newest deletion first; NOT_FOUND for an environment the caller may not see. Never a value. */
    async list(principal: Principal, environmentId: string, page: PageRequest): Promise<Page<DeletedSecret>> {
      const ws = principal.workspaceId;
      await visibleEnvironment(principal, await store.getEnvironment(ws, environmentId), environmentId);
      const { policy } = principal.authority;
      // Filtered while paging, not after: what the caller may not read changes no page, `hasMore` or cursor.
      return store.listDeletedSecrets(
        ws,
        environmentId,
        page,
        clock.now(),
        policy.seesEverything ? undefined : (item) => policy.allows('read', targetOf(item)),
      );
    },

    /**
     * The workspace's secrets the caller may read, live ones and those in their recovery window together, by creation,
     * newest first unless told otherwise (the AWS API's ListSecrets with IncludePlannedDeletion; the deleted ones carry
     * `deletedAt`); `matching` keeps only those it accepts. Filtered while paging, as `list`. Never a value.
     */
    async listWithLive(
      principal: Principal,
      page: PageRequest,
      options: { newestFirst: boolean; matching?: ((record: SecretRecord) => boolean) | undefined },
    ): Promise<Page<SecretRecord | DeletedSecret>> {
      const ws = principal.workspaceId;
      const { policy } = principal.authority;
      const { matching } = options;
      await store.indexDeletedSecrets(ws);
      const readable = policy.seesEverything ? undefined : (record: SecretRecord) => policy.allows('read', targetOf(record));
      const keep = readable && matching ? (record: SecretRecord) => readable(record) && matching(record) : (readable ?? matching);
      return store.listSecretsWithDeleted(ws, page, { newestFirst: options.newestFirst, now: clock.now(), keep });
    },

    /**
     * The secret last deleted at `path` and still restorable, as the caller may read it (NOT_FOUND otherwise); never
     * its value. The AWS API names a secret in its recovery window by its name.
     */
    async readByPath(principal: Principal, path: string): Promise<DeletedSecret> {
      const found = SECRET_PATH.test(path) ? await store.getDeletedSecretByPath(principal.workspaceId, path, clock.now()) : undefined;
      const { sealed: _sealed, ...deleted } = await readable(principal, found, path, `no deleted secret at path ${JSON.stringify(path)}`);
      return deleted;
    },

    /**
     * Puts the secret back whole: same id, every version and its history; audited `secret.restore` (the event
     * `service.secret.create` with its current version). CONFLICT when a live secret holds its key.
     */
    async restore(principal: Principal, secretId: string) {
      const ws = principal.workspaceId;
      const now = clock.now();
      const deleted = await readable(
        principal,
        await store.getDeletedSecret(ws, secretId, now),
        secretId,
        `secret ${secretId} was not found among the deleted secrets`,
      );
      await permit(principal, 'delete', deleted);
      await reviewGate(principal, deleted);
      const { key, projectId, environmentId, currentVersion: version } = deleted;
      const audit = auditEntry(
        principal,
        'secret.restore',
        secretId,
        { key, projectId, environmentId, version, deletedAt: deleted.deletedAt },
        now,
      );
      const answer = announceAnswer({ id: secretId, key, version });
      await store.restoreSecret(ws, deleted, audit, now);
      return answer;
    },
  };
}

export type DeletedSecretService = ReturnType<typeof makeDeletedSecretService>;
