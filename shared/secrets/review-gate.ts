import { bypassesReview } from '../access/index.ts';
import { ReviewRequiredError } from '../platform/errors.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { ProjectStore } from '../workspaces/index.ts';
import { AWSPENDING, labelsOf, type Labelled } from './secret-labels.ts';

/**
 * The review gate (decisions.md v1.4, "Change requests"): with a review policy on an environment, a write to its
 * secrets by a credential its `bypass` does not name is REVIEW_REQUIRED (the AWS API's AccessDeniedException naming
 * the policy). Every public write of the secrets service asks it after the policy's own checks and before anything
 * is sealed or written; the change-request merge writes through the layer below it (secret-writer.ts's `writeNext`),
 * and so does the service's own scheduled rotation (`writeAsService`), which no policy stops.
 */

/** An environment's review policy, as the gate needs it. */
export interface ReviewPolicyView {
  requiredApprovals: number;
  bypass: readonly string[];
}

/** Whether the caller's write must go through a change request: a policy, and the credential not in its `bypass`. */
export function reviewRequired(principal: Pick<Principal, 'credentialId'>, policy: ReviewPolicyView | undefined): boolean {
  return policy !== undefined && !bypassesReview(principal, policy);
}

/** REVIEW_REQUIRED when `reviewRequired` says so; the message names the environment's policy, never a value. */
export function refuseUnreviewedWrite(
  principal: Pick<Principal, 'credentialId'>,
  environment: { id: string; reviewPolicy?: ReviewPolicyView | undefined },
): void {
  if (!reviewRequired(principal, environment.reviewPolicy)) return;
  const approvals = environment.reviewPolicy!.requiredApprovals;
  throw new ReviewRequiredError(
    `environment ${environment.id} has a review policy (${approvals} approval${approvals === 1 ? '' : 's'}): ` +
      'propose this change as a change request, or write with an access key its bypass names',
  );
}

/**
 * Whether a write continues the rotation in progress: it names by its token (`versionId`, an AWS ClientRequestToken
 * or MoveToVersionId) the version that carries AWSPENDING, as a rotation function does when it fills the version its
 * rotation reserved and when it moves AWSCURRENT onto it (finishSecret). Scheduled rotations still run under a policy;
 * a rotation a caller starts was gated when it started, and only a gated write can label AWSPENDING otherwise.
 */
export function continuesRotation(secret: Labelled & { versionIds?: Record<string, string> }, versionId: string | undefined): boolean {
  const pending = labelsOf(secret)[AWSPENDING];
  return versionId !== undefined && pending !== undefined && secret.versionIds?.[String(pending)] === versionId;
}

/** A secret found by id, as the gate needs it: its environment, and its labels for `continuesRotation`. */
type GatedSecret = Labelled & { environmentId: string; versionIds?: Record<string, string> };

/**
 * The gate for a write that found its secret by id, so knows its environment's id only: the environment is read only
 * when the workspace item (read with the credential) lists it among those with a policy; without one, nothing is read.
 * `prefetched` serves the read when the route read the environment ahead; `versionId` is the token the write names.
 */
export function makeReviewGate(store: Pick<ProjectStore, 'getEnvironment'>) {
  return async (principal: Principal, secret: GatedSecret, options: { prefetched?: Prefetched; versionId?: string } = {}) => {
    const { environmentId } = secret;
    if (!principal.reviewedEnvironments?.has(environmentId) || continuesRotation(secret, options.versionId)) return;
    const environment = await store.getEnvironment(principal.workspaceId, environmentId, options.prefetched);
    // Deleted since the workspace item was read: its secrets went with it, and the write finds nothing to write.
    if (environment) refuseUnreviewedWrite(principal, environment);
  };
}

/** The gate of writes by secret id (makeReviewGate's answer). */
export type ReviewGate = ReturnType<typeof makeReviewGate>;
