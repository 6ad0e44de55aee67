import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { describeError, unwrap, useSession, type Session } from '../api.ts';
import type { paths } from '@secrets-service/sdk/client';

/** A change request as the API answers it (its changes without their values). */
export type ChangeRequestItem = paths['/api/v1/change-requests/{id}']['get']['responses'][200]['content']['application/json']['data'];

/**
 * What an environment's page knows of its review policy (decisions.md, "Change requests"): with one, its forms
 * propose their change as a change request instead of writing it. An admin reads the policy; anyone else learns of
 * it from a write answered REVIEW_REQUIRED (the policy itself is for admins only), and the form then offers to
 * propose the same change.
 */
export interface Review {
  envId: string;
  /** Writes here go through a change request. */
  propose: boolean;
  /** Approvals the policy asks, when the credential may read it. */
  approvals: number | null;
  /** A write was answered REVIEW_REQUIRED: propose from now on. */
  required: () => void;
  /** The last change request opened on this page, to link it. */
  opened: ChangeRequestItem | null;
  onOpened: (request: ChangeRequestItem) => void;
}

const NO_REVIEW: Review = { envId: '', propose: false, approvals: null, required: () => {}, opened: null, onOpened: () => {} };

/** The environment page's review state; elsewhere (the secret page) none: a write there shows REVIEW_REQUIRED as is. */
export const ReviewContext = createContext<Review>(NO_REVIEW);

/** The review state of the page a form is on. */
export const useReview = () => useContext(ReviewContext);

/**
 * The review state of `envId`'s page. Only an admin may read the policy; a person is never in its `bypass` (it names
 * access keys), so for a person a policy means proposing at once, while an access key tries its write first and
 * proposes only when the API answers REVIEW_REQUIRED.
 */
export function useReviewState(envId: string): Review {
  const session = useSession();
  const [approvals, setApprovals] = useState<number | null>(null);
  const [propose, setPropose] = useState(false);
  const [opened, setOpened] = useState<ChangeRequestItem | null>(null);
  useEffect(() => {
    setApprovals(null), setPropose(false), setOpened(null);
    if (!session.credential.offers.admin) return undefined;
    let current = true;
    void readPolicy(session, envId).then((policy) => {
      if (!current || !policy) return;
      setApprovals(policy.requiredApprovals);
      if (isPerson(session) || policy.bypass.length === 0) setPropose(true);
    });
    return () => void (current = false);
  }, [envId]);
  return { envId, propose, approvals, required: () => setPropose(true), opened, onOpened: setOpened };
}

/** The policy, or null (none, or the API would not say: the page then learns of it from a write). */
async function readPolicy(session: Session, envId: string) {
  const answer = await session.client.api.GET('/api/v1/environments/{envId}/review-policy', { params: { path: { envId } } });
  try {
    return unwrap(answer);
  } catch {
    return null;
  }
}

const isPerson = (session: Session) => !['API key', 'machine'].includes(session.credential.label);

/** Whether `error` is the API's refusal of a direct write to an environment under review. */
export const isReviewRequired = (error: unknown) => describeError(error).code === 'REVIEW_REQUIRED';
