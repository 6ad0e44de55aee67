import type { Principal } from '../platform/principal.ts';
import type { PolicyAction, PolicyTarget } from '../platform/principal.ts';
import type { Clock } from '../platform/clock.ts';
import { type AccessScope, requireAccess } from '../access/index.ts';
import type { DenialStore } from '../access/index.ts';
import type { SecretRecord } from './secret-record.ts';
import { auditEntry } from '../audit/index.ts';

/** A secret (or a key about to be one) where the policy looks: its project and environment slugs and its key. */
export const targetOf = (secret: { projectSlug: string; envSlug: string; key: string }): PolicyTarget => ({
  project: secret.projectSlug,
  environment: secret.envSlug,
  key: secret.key,
});

/** What an environment lookup answers, as much of it as the policy and a write need. */
export type EnvironmentRef = { id: string; projectId: string; projectSlug: string; slug: string };

/** A secret, or a key about to be one, as a refusal needs it: where it is, and its id once it exists. */
type GuardedSecret = { id?: string; projectId: string; environmentId: string; projectSlug: string; envSlug: string; key: string };

const secretScope = (secret: { projectSlug: string; envSlug: string; key: string }): AccessScope => ({
  project: secret.projectSlug,
  environment: secret.envSlug,
  key: secret.key,
});
const environmentScope = (environment: EnvironmentRef): AccessScope => ({
  project: environment.projectSlug,
  environment: environment.slug,
});

/**
 * The secret services' view of the caller's policy (shared/access/access-policy.ts, which alone decides, turned into answers
 * by shared/access/refusals.ts): what the caller may not read is NOT_FOUND, what it may read but not do is FORBIDDEN
 * and audited as `access.denied`.
 */
export function makeSecretGuard(store: Pick<DenialStore, 'recordDenial'>, clock: Clock, onDenialAuditFailure?: (error: unknown) => void) {
  /** The head of a secret the caller may read; NOT_FOUND for one it may not (it does not exist for the caller). */
  function readable<T extends SecretRecord>(
    principal: Principal,
    head: T | undefined,
    secretId: string,
    notFound = `secret ${secretId} was not found`,
  ): Promise<T> {
    return requireAccess(principal, head, secretScope, { notFound });
  }

  /** An environment the caller may see; NOT_FOUND for one it may not. */
  function visibleEnvironment<T extends EnvironmentRef>(
    principal: Principal,
    environment: T | undefined,
    environmentId: string,
  ): Promise<T> {
    return requireAccess(principal, environment, environmentScope, { notFound: `environment ${environmentId} was not found` });
  }

  /**
   * FORBIDDEN, audited as `access.denied` (at most one entry a minute per credential, action and secret, with the
   * count of attempts since the last), unless the caller may do `action` on the secret or key. Its visibility was
   * decided before (`readable`, or `visibleEnvironment` for a key that may not exist yet).
   */
  async function permit(principal: Principal, action: PolicyAction, secret: GuardedSecret): Promise<void> {
    const denied = (found: GuardedSecret) =>
      recordDenial(principal, action, found.id ?? found.environmentId, {
        key: found.key,
        projectId: found.projectId,
        environmentId: found.environmentId,
      });
    const environment = (found: GuardedSecret): AccessScope => ({ project: found.projectSlug, environment: found.envSlug });
    await requireAccess(principal, secret, environment, {
      notFound: `environment ${secret.environmentId} was not found`,
      action,
      on: secretScope,
      denied,
    });
  }

  /** The environment when the caller may do `action` on some key of it; FORBIDDEN, audited, when no rule could. */
  function permitAnywhere<T extends EnvironmentRef>(
    principal: Principal,
    action: PolicyAction,
    environment: T | undefined,
    environmentId: string,
  ): Promise<T> {
    const denied = (found: T) =>
      recordDenial(principal, action, found.id, { key: null, projectId: found.projectId, environmentId: found.id });
    return requireAccess(principal, environment, environmentScope, {
      notFound: `environment ${environmentId} was not found`,
      action,
      denied,
    });
  }

  async function recordDenial(
    principal: Principal,
    action: PolicyAction,
    target: string,
    metadata: { key: string | null; projectId: string; environmentId: string },
  ) {
    const now = clock.now();
    const subject = `${action}#${metadata.environmentId}#${metadata.key ?? '*'}`;
    const entry = ({ count, since }: { count: number; since: string | null }) =>
      auditEntry(principal, 'access.denied', target, { attemptedAction: action, ...metadata, count, since }, now);
    try {
      await store.recordDenial(principal.workspaceId, principal.credentialId, subject, entry, now);
    } catch (error) {
      onDenialAuditFailure?.(error);
    }
  }

  return { readable, visibleEnvironment, permit, permitAnywhere };
}
