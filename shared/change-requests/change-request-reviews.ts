import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import type { Principal } from '../platform/principal.ts';
import { assertFirstReview, assertMayReview, assertNotAuthor, assertStatus } from './change-request-checks.ts';
import {
  answerOf,
  requestMetadata,
  statusAt,
  untilUpdated,
  type ChangeRequestRecord,
  type StoredStatus,
} from './change-request-records.ts';
import type { ChangeRequestStore } from './change-request-store.ts';

export interface ReviewInput {
  decision: 'approve' | 'reject';
  comment?: string | undefined;
}

/** What a review needs: the request's reads and writes, the environment's policy (its required approvals), a clock. */
export interface ReviewDeps {
  store: Pick<ChangeRequestStore, 'getRequestEnvironment' | 'updateChangeRequest'>;
  clock: Clock;
}

/** The status after `reviews`: a reject rejects; enough approvals approve; else still open. */
export function statusAfter(reviews: ChangeRequestRecord['reviews'], requiredApprovals: number): StoredStatus {
  if (reviews.some((review) => review.decision === 'reject')) return 'rejected';
  return reviews.filter((review) => review.decision === 'approve').length >= requiredApprovals ? 'approved' : 'open';
}

/** Reviews of a change request (decisions.md v1.4): by another person or an API key, once per identity, while open. */
export function makeReviews(deps: ReviewDeps, find: (principal: Principal, id: string) => Promise<ChangeRequestRecord>) {
  const { store, clock } = deps;
  /** Approves or rejects: audited `change_request.review` (metadata `decision`), with the status it leads to. */
  async function review(principal: Principal, id: string, input: ReviewInput) {
    return untilUpdated(async () => {
      const request = await find(principal, id);
      assertMayReview(principal);
      assertNotAuthor(principal, request);
      const now = clock.now();
      assertStatus(statusAt(request, now), ['open'], 'reviewed');
      assertFirstReview(principal, request);
      // The policy as it is now: an environment whose policy asks for more approvals since the request opened asks
      // them of it too (without a policy, one approval).
      const environment = await store.getRequestEnvironment(principal.workspaceId, request.environmentId);
      const reviews = [
        ...request.reviews,
        { reviewerSub: principal.actorSub, decision: input.decision, comment: input.comment ?? null, createdAt: iso(now) },
      ];
      const status = statusAfter(reviews, environment?.requiredApprovals ?? 1);
      const next: ChangeRequestRecord = { ...request, reviews, status, updatedAt: iso(now), revision: request.revision + 1 };
      const metadata = { ...requestMetadata(next), decision: input.decision, status };
      await store.updateChangeRequest(
        principal.workspaceId,
        next,
        request,
        auditEntry(principal, 'change_request.review', id, metadata, now),
      );
      return answerOf(next, now);
    });
  }
  return { review };
}
