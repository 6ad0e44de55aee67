import { assertMayManageReviewPolicies, requireAccess } from '../access/index.ts';
import { auditEntry } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import { NotFoundError } from '../platform/errors.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { ProjectStore } from './project-store.ts';
import type { ReviewPolicy, ReviewPolicyStore } from './review-policy-store.ts';

/**
 * Review policies (decisions.md v1.4, "Change requests"): an admin sets, reads and removes an environment's policy;
 * each change is audited (`review_policy.set`, `review_policy.delete`; no event). The secrets service enforces it
 * (shared/secrets/review-gate.ts).
 */

export type ReviewPolicyServiceStore = Pick<ProjectStore, 'getEnvironment'> & ReviewPolicyStore;

/** What the routes answer: the policy with its environment's id. */
export type ReviewPolicyAnswer = ReviewPolicy & { environmentId: string };

export function makeReviewPolicies({ store, clock }: { store: ReviewPolicyServiceStore; clock: Clock }) {
  /** The environment, for an admin (FORBIDDEN for anyone else, asked first); NOT_FOUND for one it may not see. */
  async function administered(principal: Principal, environmentId: string, prefetched?: Prefetched) {
    assertMayManageReviewPolicies(principal);
    const found = await store.getEnvironment(principal.workspaceId, environmentId, prefetched);
    return requireAccess(principal, found, (e) => ({ project: e.projectSlug, environment: e.slug }), {
      notFound: `environment ${environmentId} was not found`,
    });
  }

  return {
    /** The environment's policy, or null when it has none. */
    async getReviewPolicy(principal: Principal, environmentId: string, prefetched?: Prefetched): Promise<ReviewPolicyAnswer | null> {
      const environment = await administered(principal, environmentId, prefetched);
      return environment.reviewPolicy ? { environmentId, ...environment.reviewPolicy } : null;
    },

    /** Sets or replaces the policy; audited `review_policy.set` with the policy (ids only: nothing secret). */
    async setReviewPolicy(
      principal: Principal,
      environmentId: string,
      input: { requiredApprovals: number; bypass?: string[] | undefined },
      prefetched?: Prefetched,
    ): Promise<ReviewPolicyAnswer> {
      const environment = await administered(principal, environmentId, prefetched);
      const policy: ReviewPolicy = { requiredApprovals: input.requiredApprovals, bypass: input.bypass ?? [] };
      const metadata = { projectId: environment.projectId, ...policy, previous: environment.reviewPolicy ?? null };
      const now = clock.now();
      const answer = announceAnswer({ environmentId, ...policy });
      await store.putReviewPolicy(
        principal.workspaceId,
        environment,
        policy,
        auditEntry(principal, 'review_policy.set', environmentId, metadata, now),
      );
      return answer;
    },

    /** Removes the policy; NOT_FOUND when there is none (nothing to remove, nothing audited). */
    async deleteReviewPolicy(principal: Principal, environmentId: string, prefetched?: Prefetched) {
      const environment = await administered(principal, environmentId, prefetched);
      if (!environment.reviewPolicy) throw new NotFoundError(`environment ${environmentId} has no review policy`);
      const metadata = { projectId: environment.projectId, previous: environment.reviewPolicy };
      const answer = announceAnswer({ id: environmentId, deleted: true as const });
      await store.deleteReviewPolicy(
        principal.workspaceId,
        environment,
        auditEntry(principal, 'review_policy.delete', environmentId, metadata, clock.now()),
      );
      return answer;
    },
  };
}
