import type { Principal } from '../auth/principal.ts';
import type { PolicyAction, PolicyTarget } from '../auth/policy.ts';
import type { Clock } from '../clock.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { StoredSecret } from '../store/secrets.ts';
import { auditEntry } from '../audit-entry.ts';

/** A secret (or a key about to be one) where the policy looks: its project and environment slugs and its key. */
export const targetOf = (secret: { projectSlug: string; envSlug: string; key: string }): PolicyTarget => ({
  project: secret.projectSlug,
  environment: secret.envSlug,
  key: secret.key,
});

/** What an environment lookup answers, as much of it as the policy and a write need. */
export type EnvironmentRef = { id: string; projectId: string; projectSlug: string; slug: string };

/**
 * How the secret service turns the caller's policy (shared/auth/policy.ts, which alone decides) into answers: what
 * the caller may not read is NOT_FOUND, what it may read but not do is FORBIDDEN and audited as `access.denied`.
 */
export function makeSecretGuard(store: Pick<Store, 'recordDenial'>, clock: Clock, onDenialAuditFailure?: (error: unknown) => void) {
  /** The head of a secret the caller may read; NOT_FOUND for one it may not (it does not exist for the caller). */
  function readable<T extends StoredSecret>(principal: Principal, head: T | undefined, secretId: string): T {
    if (!head || !principal.authority.policy.allows('read', targetOf(head))) throw new NotFoundError(`secret ${secretId} was not found`);
    return head;
  }

  /** An environment the caller may see; NOT_FOUND for one it may not. */
  function visibleEnvironment<T extends EnvironmentRef>(principal: Principal, environment: T | undefined, environmentId: string): T {
    if (!environment || !principal.authority.policy.environmentVisible(environment.projectSlug, environment.slug)) {
      throw new NotFoundError(`environment ${environmentId} was not found`);
    }
    return environment;
  }

  /**
   * FORBIDDEN, audited as `access.denied` (at most one entry a minute per credential, action and secret, with the
   * count of attempts since the last), unless the caller may do `action` on the secret or key.
   */
  async function permit(principal: Principal, action: PolicyAction, secret: { id?: string; projectId: string; environmentId: string; projectSlug: string; envSlug: string; key: string }) {
    if (principal.authority.policy.allows(action, targetOf(secret))) return;
    await recordDenial(principal, action, secret.id ?? secret.environmentId, { key: secret.key, projectId: secret.projectId, environmentId: secret.environmentId });
    throw new ForbiddenError(`This credential may not ${action} ${secret.key} in ${secret.projectSlug}/${secret.envSlug}`);
  }

  async function recordDenial(principal: Principal, action: PolicyAction, target: string, metadata: { key: string | null; projectId: string; environmentId: string }) {
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

  return { readable, visibleEnvironment, permit, recordDenial };
}
