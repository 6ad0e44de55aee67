import { SYSTEM_ACTOR } from '../audit/index.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Policy, Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import type { SecretRecord } from './secret-record.ts';
import type { makeSecretWriter } from './secret-writer.ts';
import { makePendingVersions } from './pending-versions.ts';
import type { ReviewGate } from './review-gate.ts';

/**
 * What the rotation feature (shared/rotation/) asks of secrets: the caller's `read` and `write` of a secret (the
 * policy, through the guard), the head as the service reads it for itself, the AWSPENDING version a rotation reserves
 * and releases (pending-versions.ts), and a rotated value written by the service itself.
 */

/** A policy that grants nothing: the service acting on its own has no rules, only what its code does. */
const GRANTS_NOTHING: Policy = {
  allows: () => false,
  projectVisible: () => false,
  environmentVisible: () => false,
  mayAnywhere: () => false,
  seesEverything: false,
  revealsEverything: false,
  literalScope: new Map(),
  rules: [],
};

/**
 * The service itself as the writer of a workspace's secret (a rotation without a function): actorSub `system`, no
 * credential kind (its audit entries name none, as every entry of the service's own does), and no rules.
 */
export function servicePrincipal(workspaceId: string, accountId: string): Principal {
  return {
    workspaceId,
    accountId,
    kind: undefined,
    actorSub: SYSTEM_ACTOR,
    credentialId: SYSTEM_ACTOR,
    authority: { policy: GRANTS_NOTHING, admin: false },
  };
}

type SecretWriter = ReturnType<typeof makeSecretWriter>;

/** The secrets side of rotation, over the secrets service's store, guard and writer's loop. */
export function makeSecretsForRotation(
  deps: {
    store: Pick<SecretStore, 'getSecretHead' | 'writeSecretVersion'>;
    writeNext: SecretWriter['writeNext'];
    /** Rotation's configuration and a start by a caller are writes: the review gate asks (review-gate.ts). */
    reviewGate: ReviewGate;
  },
  guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>,
) {
  const { store } = deps;
  return {
    ...makePendingVersions(deps),

    /**
     * The head of a secret the caller may write (NOT_FOUND / FORBIDDEN as for a write, REVIEW_REQUIRED in an
     * environment with a review policy), read strongly consistent.
     */
    async writableHead(principal: Principal, secretId: string) {
      const head = await guard.readable(principal, await store.getSecretHead(principal.workspaceId, secretId), secretId);
      await guard.permit(principal, 'write', head);
      await deps.reviewGate(principal, head);
      return head;
    },

    /** The secret when the caller may read it; NOT_FOUND (as for a secret that does not exist) otherwise. */
    readable: <T extends SecretRecord>(principal: Principal, secret: T) => guard.readable(principal, secret, secret.id),

    /** The secret's head as the service reads it for itself (a runner's step, a schedule's start): no caller, no policy. */
    head: (workspaceId: string, secretId: string) => store.getSecretHead(workspaceId, secretId),

    /**
     * Writes `value` as the token's reserved version and makes it AWSCURRENT, by the service itself (servicePrincipal),
     * audited `secret.rotate` with actorSub `system` (so `service.secret.rotate` tells consumers).
     */
    async writeAsService(workspaceId: string, accountId: string, secretId: string, token: string, value: string) {
      const head = await store.getSecretHead(workspaceId, secretId);
      if (!head) throw new NotFoundError(`secret ${secretId} was not found`);
      const environment = { id: head.environmentId, projectId: head.projectId, projectSlug: head.projectSlug, slug: head.envSlug };
      return deps.writeNext(
        servicePrincipal(workspaceId, accountId),
        environment,
        { key: head.key, value },
        { versionId: token, secretId: head.id },
      );
    },
  };
}

/** What the rotation feature uses of secrets (SecretService's `forRotation`). */
export type SecretsForRotation = ReturnType<typeof makeSecretsForRotation>;
