import { mayReview, requireAccess } from '../access/index.ts';
import { ConflictError, ForbiddenError } from '../platform/errors.ts';
import type { PolicyAction, Principal } from '../platform/principal.ts';
import type { ChangeRequestRecord, ChangeRequestStatus, RequestPlace } from './change-request-records.ts';

/**
 * Every refusal of the change requests service, one named function each (decisions.md v1.4, "Change requests"):
 * the policy decides visibility and actions on keys (shared/access), these decide who may review, merge and close.
 */

/** The request's environment when the caller may see it; NOT_FOUND, as for an absent request, when it may not. */
export function visibleRequest<T extends RequestPlace>(principal: Principal, found: T | undefined, id: string): Promise<T> {
  return requireAccess(principal, found, (r) => ({ project: r.projectSlug, environment: r.envSlug }), {
    notFound: `change request ${id} was not found`,
  });
}

/** FORBIDDEN unless the caller may do `action` on every key named (the request's environment is visible). */
export async function permitKeys(principal: Principal, place: RequestPlace, action: PolicyAction, keys: readonly string[]): Promise<void> {
  for (const key of keys)
    await requireAccess(principal, place, (p) => ({ project: p.projectSlug, environment: p.envSlug }), {
      notFound: `environment ${place.environmentId} was not found`,
      action,
      on: (p) => ({ project: p.projectSlug, environment: p.envSlug, key }),
    });
}

/**
 * FORBIDDEN unless the caller may make every change: `write` on each key (decisions.md v1.4), and `delete` on each key
 * it deletes, as a direct delete asks; else a key without `delete` could delete through a request.
 */
export async function permitChanges(
  principal: Principal,
  place: RequestPlace,
  changes: readonly { key: string; action: 'set' | 'delete' }[],
): Promise<void> {
  await permitKeys(
    principal,
    place,
    'write',
    changes.map((change) => change.key),
  );
  const deletes = changes.filter((change) => change.action === 'delete').map((change) => change.key);
  if (deletes.length > 0) await permitKeys(principal, place, 'delete', deletes);
}

/**
 * FORBIDDEN unless the caller may review (the access policy's `mayReview`: a person with the role admin or developer,
 * or an API key; never a machine token nor a viewer).
 */
export function assertMayReview(principal: Principal): void {
  if (!mayReview(principal))
    throw new ForbiddenError('This credential may not review change requests: it needs a person (admin or developer) or an API key');
}

/** FORBIDDEN for the author's own identity: a review is a second person's. */
export function assertNotAuthor(principal: Principal, request: ChangeRequestRecord): void {
  if (principal.actorSub === request.authorSub) throw new ForbiddenError('The author of a change request may not review it');
}

/** CONFLICT when this identity has reviewed the request already: one review per identity. */
export function assertFirstReview(principal: Principal, request: ChangeRequestRecord): void {
  if (request.reviews.some((review) => review.reviewerSub === principal.actorSub))
    throw new ConflictError('This identity has already reviewed this change request');
}

/** CONFLICT naming the status unless the request is in one of `allowed`. */
export function assertStatus(status: ChangeRequestStatus, allowed: readonly ChangeRequestStatus[], doing: string): void {
  if (!allowed.includes(status)) throw new ConflictError(`The change request is ${status}: it cannot be ${doing}`);
}

/** FORBIDDEN unless the caller wrote the request or reviewed it: who may merge. */
export function assertMayMerge(principal: Principal, request: ChangeRequestRecord): void {
  const reviewer = request.reviews.some((review) => review.reviewerSub === principal.actorSub);
  if (principal.actorSub !== request.authorSub && !reviewer)
    throw new ForbiddenError('Only the author or a reviewer of a change request may merge it');
}

/** FORBIDDEN unless the caller wrote the request or administers the workspace: who may close. */
export function assertMayClose(principal: Principal, request: ChangeRequestRecord): void {
  if (principal.actorSub !== request.authorSub && !principal.authority.admin)
    throw new ForbiddenError('Only the author of a change request or an admin may close it');
}
