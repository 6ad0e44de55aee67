import type { PolicyAction, Principal } from '../platform/principal.ts';
import type { ProjectStore } from '../workspaces/index.ts';
import type { EnvironmentRef, makeSecretGuard } from './secret-guard.ts';
import type { SecretRecord } from './secret-record.ts';
import type { SecretValue, WriteAnswer, WriteInput, WriteOptions } from './secret-write-types.ts';
import type { makeValuelessCreate } from './secret-valueless.ts';
import { refuseUnreviewedWrite, type ReviewGate } from './review-gate.ts';

/**
 * The secrets service's writes by path and of a secret already found (what the AWS API's CreateSecret,
 * PutSecretValue and UpdateSecret call), and the policy's question for an operation that changes nothing. Each asks
 * the policy at its top, as every service method does.
 */
export interface SecretPathWritesDeps {
  store: Pick<ProjectStore, 'getProjectBySlug' | 'getEnvironmentBySlug'>;
  guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'visibleEnvironment' | 'permit'>;
  writeNext: (principal: Principal, environment: EnvironmentRef, input: WriteInput, options: WriteOptions) => Promise<WriteAnswer>;
  createWithoutValue: ReturnType<typeof makeValuelessCreate>['createWithoutValue'];
  /** The review gate of a write by secret id (review-gate.ts). */
  reviewGate: ReviewGate;
}

export function makeSecretPathWrites({ store, guard, writeNext, createWithoutValue, reviewGate }: SecretPathWritesDeps) {
  const { readable, visibleEnvironment, permit } = guard;

  /** An environment by its project's and its own slug, if the caller may see it; NOT_FOUND otherwise. */
  async function environmentAt(principal: Principal, projectSlug: string, envSlug: string) {
    const ws = principal.workspaceId;
    const project = await store.getProjectBySlug(ws, projectSlug);
    const found = project && (await store.getEnvironmentBySlug(ws, project.id, envSlug));
    return visibleEnvironment(principal, found && { ...found, projectSlug: project.slug }, `${projectSlug}/${envSlug}`);
  }

  return {
    /**
     * A write by path `<projectSlug>/<envSlug>/<key>` (the AWS API's CreateSecret): the project and environment must
     * exist (it never makes them); otherwise as `write`. Without a value (`null`) it makes a secret with no version
     * (decisions.md v1.4), which a later write gives version 1.
     */
    async writeAtPath(
      principal: Principal,
      path: { projectSlug: string; envSlug: string; key: string },
      value: SecretValue | null,
      options: WriteOptions = {},
    ) {
      const environment = await environmentAt(principal, path.projectSlug, path.envSlug);
      await permit(principal, 'write', {
        projectId: environment.projectId,
        environmentId: environment.id,
        projectSlug: environment.projectSlug,
        envSlug: environment.slug,
        key: path.key,
      });
      // The environment's item read by slug carries its policy; a secret without a value is a write all the same.
      refuseUnreviewedWrite(principal, environment);
      if (value === null) return createWithoutValue(principal, environment, path.key, options);
      return writeNext(principal, environment, { key: path.key, ...value }, options);
    },

    /**
     * The next version of an existing secret (the AWS API's PutSecretValue and UpdateSecret): the secret as the
     * caller's lookup just read it (readByPath), so it is not read again; the policy is asked here all the same.
     */
    async writeExisting(principal: Principal, found: SecretRecord, value: SecretValue, options: WriteOptions = {}) {
      const head = await readable(principal, found, found.id);
      await permit(principal, 'write', head);
      await reviewGate(principal, head, { versionId: options.versionId });
      const secretId = head.id;
      const environment = { id: head.environmentId, projectId: head.projectId, projectSlug: head.projectSlug, slug: head.envSlug };
      return writeNext(principal, environment, { key: head.key, ...value }, { ...options, secretId });
    },

    /**
     * Whether the caller may write a new value of a secret it found, asked before anything changes (UpdateSecret
     * changes the description before the value, and a refused value must leave the description as it was): NOT_FOUND,
     * FORBIDDEN or REVIEW_REQUIRED as `writeExisting` would answer. Reads nothing without a review policy.
     */
    async mayWriteValue(principal: Principal, found: SecretRecord, versionId?: string): Promise<void> {
      const head = await readable(principal, found, found.id);
      await permit(principal, 'write', head);
      await reviewGate(principal, head, { versionId });
    },

    /**
     * Asks the policy whether the caller may do `action` on a secret it found (NOT_FOUND when it may not read it,
     * FORBIDDEN, audited, when it may read but not do it), for an operation that changes nothing but must be allowed
     * as if it did: the AWS API's DeleteResourcePolicy (`write`). Reads nothing.
     */
    async authorize(principal: Principal, action: PolicyAction, secret: SecretRecord): Promise<void> {
      await permit(principal, action, await readable(principal, secret, secret.id));
    },
  };
}
