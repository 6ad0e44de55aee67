import type { Principal } from '../platform/principal.ts';
import { iso, type Clock } from '../platform/clock.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { secretContext } from '../platform/crypto/context.ts';
import { makeSecretGuard, targetOf } from './secret-guard.ts';
import { makeSecretSearch } from './secret-search-service.ts';
import { makeSecretReveals, metadataOf } from './secret-reveals.ts';
import { makeSecretBulkReveals } from './secret-bulk-reveals.ts';
import { secretArn, versionIdOf, type AwsPlace } from './secret-names.ts';
import { stagesOf } from './secret-labels.ts';
import { makeSecretWriter, type WriteOptions } from './secret-writer.ts';
import { makeSecretStages } from './secret-stages.ts';
import { makeSecretPathWrites } from './secret-path-writes.ts';
import { makeValuelessCreate } from './secret-valueless.ts';
import { makeSecretsForRotation } from './secrets-for-rotation.ts';
import type * as z from 'zod/mini';
import type { rotationDetail } from './secret-answers.ts';
import { eventually, type Prefetched } from '../platform/prefetch.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import type { SecretStore } from './secret-store.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { DeletedSecretStore } from './deleted-secret-store.ts';
import type { EnvironmentSearchStore } from './environment-search-store.ts';
import type { EnvironmentValueStore } from './environment-value-store.ts';
import type { ReferenceIndexStore } from '../references/index.ts';
import type { DenialStore } from '../access/index.ts';
import type { ProjectStore } from '../workspaces/index.ts';
import { secretPath, type SecretRecord } from './secret-record.ts';
import { auditEntry } from '../audit/index.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import { makeReviewGate, refuseUnreviewedWrite } from './review-gate.ts';

export type SecretServiceStore = Pick<
  SecretStore,
  | 'getEnvironmentSecret'
  | 'getSecretHead'
  | 'getSecretByPath'
  | 'getSecretVersion'
  | 'writeSecretVersion'
  | 'recordReveal'
  | 'listSecrets'
  | 'searchSecrets'
  | 'listSecretVersions'
  | 'secretByIdKeys'
  | 'secretByPathKeys'
  | 'secretWriteKeys'
> &
  Pick<SecretMetadataStore, 'getVersionNumberOf' | 'getSecretVersionRecords' | 'updateSecretMetadata' | 'getSecretsByPaths'> &
  Pick<DeletedSecretStore, 'deleteSecret' | 'purgeSecretVersions'> &
  Pick<EnvironmentSearchStore, 'searchEnvironments' | 'environmentsOfProjects' | 'indexEnvironmentSearch'> &
  Pick<EnvironmentValueStore, 'listEnvironmentValues' | 'countRevealPage' | 'writeAuditEntries'> &
  Pick<DenialStore, 'recordDenial'> &
  Pick<ReferenceIndexStore, 'referencedBy'> &
  Pick<ProjectStore, 'getEnvironment' | 'getProjectBySlug' | 'getEnvironmentBySlug' | 'environmentByIdKeys'>;

/**
 * What `GET /api/v1/secrets/{secretId}` shows of the secret's rotation (null when none was configured), as its route
 * declares it: the rotation feature answers it (shared/rotation/), so secrets declares only its shape.
 */
export type SecretRotationView = z.infer<ReturnType<typeof rotationDetail>>;

export interface SecretServiceDeps {
  store: SecretServiceStore;
  cipher: Cipher;
  clock: Clock;
  /** The stack's region and account, which a secret's ARN names (config.aws). */
  place: AwsPlace;
  /** Reveals per minute per credential, both reveal routes together. */
  revealsPerMinute: number;
  /** Reveals per minute of the whole workspace (default 10 times `revealsPerMinute`). */
  workspaceRevealsPerMinute?: number;
  /** Called when a deleted secret's versions could not all be removed at once (its record stays for the purger). */
  onPurgeFailure?: (secretId: string, error: unknown) => void;
  /** Called when a denied attempt could not be audited (the caller still gets FORBIDDEN). */
  onDenialAuditFailure?: (error: unknown) => void;
  /** The secret's rotation as its record shows it (the rotation feature's answer: shared/rotation/). */
  rotationOf: (workspaceId: string, secretId: string) => Promise<SecretRotationView | null>;
}

/** How long a deleted secret can be restored by default (decisions.md: 0, or 7 to 30 days). */
export const DEFAULT_RECOVERY_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;
export { SECRET_PATH } from './secret-reveals.ts';
export { BULK_PAGE_VALUE_BYTES } from './secret-bulk-reveals.ts';
export {
  SecretExistsError,
  VersionIdExistsError,
  type SecretMetadata,
  type SecretValue,
  type WriteAnswer,
  type WriteOptions,
} from './secret-writer.ts';

/** Secrets: versioned writes, audited reveals (secret-reveals.ts), listing, search and delete. */
export function makeSecretService(deps: SecretServiceDeps) {
  const { store, cipher, clock } = deps;
  const guard = makeSecretGuard(store, clock, deps.onDenialAuditFailure);
  const { readable, visibleEnvironment, permit } = guard;
  const { sealedAt, ...reveals } = makeSecretReveals(deps, guard);
  const bulkReveals = makeSecretBulkReveals(deps, guard);
  const { writeNext, changeMetadata } = makeSecretWriter({ ...deps, guard });
  const { createWithoutValue } = makeValuelessCreate(deps);
  const reviewGate = makeReviewGate(store);
  const stages = makeSecretStages({ ...deps, reviewGate }, guard);

  return {
    ...reveals,
    ...bulkReveals,
    ...stages,
    /** What the rotation feature asks of secrets (shared/rotation/ reaches it through this feature's index.ts). */
    forRotation: makeSecretsForRotation({ store, writeNext, reviewGate }, guard),
    ...makeSecretPathWrites({ store, guard, writeNext, createWithoutValue, reviewGate }),

    /** The items each secrets route can read ahead with the credential; the store alone knows the table's keys. */
    prefetch: {
      byId: (workspaceId: string, secretId: string, version?: number) => store.secretByIdKeys(workspaceId, secretId, version),
      // Reveals read their secret (and the bulk reveal its environment) eventually consistently, at half the read
      // units; the credential stays strongly consistent. README: "Reveals: cost and consistency".
      revealById: (workspaceId: string, secretId: string, version?: number) =>
        eventually(store.secretByIdKeys(workspaceId, secretId, version)),
      revealByPath: (workspaceId: string, path: string) => eventually(store.secretByPathKeys(workspaceId, path)),
      write: (workspaceId: string, environmentId: string, key: string) => store.secretWriteKeys(workspaceId, environmentId, key),
      environment: (workspaceId: string, environmentId: string) => eventually(store.environmentByIdKeys(workspaceId, environmentId)),
    },

    /**
     * Writes version 1 of a new key or the next version of an existing one. Concurrent writers never lose or
     * share a version: each transaction is conditional on the version it read, and a loser reads and tries again.
     * With `ifMatch` (0 = must not exist) there is no retry: a different current version is CONFLICT.
     */
    async write(principal: Principal, environmentId: string, input: { key: string; value: string }, options: WriteOptions = {}) {
      const environment = await visibleEnvironment(
        principal,
        await store.getEnvironment(principal.workspaceId, environmentId, options.prefetched),
        environmentId,
      );
      // Whether the key exists or not: the answer tells nothing of existence.
      await permit(principal, 'write', {
        projectId: environment.projectId,
        environmentId,
        projectSlug: environment.projectSlug,
        envSlug: environment.slug,
        key: input.key,
      });
      // The environment was read with the credential: its policy costs no read.
      refuseUnreviewedWrite(principal, environment);
      return writeNext(principal, environment, input, options);
    },

    /**
     * Changes the secret's description or tags (not its value, so no version and no event), under `write`: the
     * policy is asked on every read of the head (secret-writer.ts, `changeMetadata`).
     */
    updateMetadata: changeMetadata,

    /**
     * Writes version N's value again as the next version, under a fresh data key and the new version's encryption
     * context: a write, not a reveal (no value in the answer, the audit entry or a log), audited as `secret.rotate`
     * with `rolledBackFrom`. `If-Match` and concurrent writers behave as for a write.
     */
    async rollback(
      principal: Principal,
      secretId: string,
      version: number,
      options: { ifMatch?: number | undefined; prefetched?: Prefetched } = {},
    ) {
      const ws = principal.workspaceId;
      const head = await readable(principal, await store.getSecretHead(ws, secretId, options.prefetched), secretId);
      await permit(principal, 'write', head);
      await reviewGate(principal, head, { prefetched: options.prefetched });
      const { sealed, encoding } = await sealedAt(ws, head, version, options.prefetched);
      const value = await cipher.decrypt(sealed, secretContext(ws, secretId, version));
      // The head carries its environment's ids and slugs (neither changes), so no environment read is needed.
      const environment = { id: head.environmentId, projectId: head.projectId, projectSlug: head.projectSlug, slug: head.envSlug };
      return writeNext(
        principal,
        environment,
        { key: head.key, value, encoding },
        { ...options, prefetched: undefined, rollback: { secretId, from: version } },
      );
    },

    /**
     * Deletes the secret from every lookup at once (its key is free again) and keeps it restorable for
     * `recoveryWindowDays` (shared/secrets/deleted-secret-store.ts); with 0 its versions are purged at once. A purge that
     * fails half-way is logged and left to the purger (its record stays: purge-service.ts); the secret is already unreachable.
     */
    async delete(principal: Principal, secretId: string, recoveryWindowDays = DEFAULT_RECOVERY_WINDOW_DAYS, prefetched?: Prefetched) {
      const ws = principal.workspaceId;
      const head = await readable(principal, await store.getSecretHead(ws, secretId, prefetched), secretId);
      await permit(principal, 'delete', head);
      await reviewGate(principal, head, { prefetched });
      const answer = announceAnswer({ id: secretId, deleted: true as const });
      const now = clock.now();
      const purgeAt = iso(now + recoveryWindowDays * DAY_MS);
      await store.deleteSecret(
        ws,
        head,
        auditEntry(principal, 'secret.delete', secretId, { ...metadataOf(head), recoveryWindowDays, purgeAt }, now),
        {
          deletedBy: principal.actorSub,
          purgeAt,
        },
      );
      // A window of 0 purges at once; any other leaves the versions sealed until the purger purges them after purgeAt.
      if (recoveryWindowDays > 0) return { ...answer, purgeAt };
      try {
        await store.purgeSecretVersions(ws, secretId);
      } catch (error) {
        deps.onPurgeFailure?.(secretId, error);
      }
      return { ...answer, purgeAt };
    },

    /**
     * A secret's versions, newest first, each with its VersionId and staging labels (secret-names.ts); NOT_FOUND for a
     * secret the caller may not read. Never a value.
     */
    async versions(principal: Principal, secretId: string, page: PageRequest, prefetched?: Prefetched) {
      const head = await readable(principal, await store.getSecretHead(principal.workspaceId, secretId, prefetched), secretId);
      const listed = await store.listSecretVersions(principal.workspaceId, secretId, page);
      return {
        ...listed,
        items: listed.items.map((item) => ({
          ...item,
          versionId: item.versionId ?? versionIdOf(head, item.version),
          stages: stagesOf(head, item.version),
        })),
      };
    },

    /**
     * One secret as `GET /api/v1/secrets/{secretId}` answers it (decisions.md, "REST sees the same objects"): its
     * record with its path, its ARN, description and tags, the targets its current value references and the secrets
     * (at most REFERENCED_BY_CAP) whose current value references it; NOT_FOUND for one the caller may not read. Never a value.
     */
    async read(principal: Principal, secretId: string, prefetched?: Prefetched) {
      const { sealed: _sealed, ...secret } = await readable(
        principal,
        await store.getSecretHead(principal.workspaceId, secretId, prefetched),
        secretId,
      );
      const path = secretPath(secret);
      const [rotation, referencedBy] = await Promise.all([
        deps.rotationOf(principal.workspaceId, secret.id),
        store.referencedBy(principal.workspaceId, path),
      ]);
      const { references = [] } = secret;
      return {
        ...secret,
        path,
        arn: secretArn(deps.place, secret),
        description: secret.description ?? null,
        tags: secret.tags ?? {},
        rotation,
        references,
        referencedBy,
      };
    },

    /**
     * An environment's secrets the caller may read. An unscoped caller reads one Query a page (the environment only
     * for an empty page, to tell NOT_FOUND from []); a scoped one reads the environment first (NOT_FOUND unless it is
     * visible) and then a page of what its rules let it read, reading on past the rest.
     */
    async list(principal: Principal, environmentId: string, page: PageRequest): Promise<Page<SecretRecord>> {
      const ws = principal.workspaceId;
      const { policy } = principal.authority;
      if (policy.seesEverything) {
        const result = await store.listSecrets(ws, environmentId, page);
        if (result.items.length === 0) await visibleEnvironment(principal, await store.getEnvironment(ws, environmentId), environmentId);
        return result;
      }
      await visibleEnvironment(principal, await store.getEnvironment(ws, environmentId), environmentId);
      return store.listSecrets(ws, environmentId, page, (record) => policy.allows('read', targetOf(record)));
    },

    /** Search by key, newest first, of what the caller may read (shared/secrets/secret-search-service.ts). */
    search: makeSecretSearch(store),
  };
}

export type SecretService = ReturnType<typeof makeSecretService>;
