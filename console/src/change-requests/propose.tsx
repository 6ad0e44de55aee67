import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { useAction } from '../ui/components.tsx';
import { isReviewRequired, useReview } from './review-context.tsx';

/** One change as a change request carries it (decisions.md, "Change requests"). */
export type ProposedChange = { key: string; value: string } | { key: string; delete: true };

/** The address of an environment's change requests. */
export const changeRequestsOf = (envId: string) => `/console/environments/${envId}/change-requests`;

/**
 * A form's change of one key, written at once or, on an environment under review, proposed as a change request
 * under the form's title. A write answered REVIEW_REQUIRED turns the page to proposing, so the same form, with what
 * was typed, offers to propose it.
 */
export function useWriteOrPropose() {
  const review = useReview();
  const { client } = useSession();
  const [title, setTitle] = useState('');
  const action = useAction();
  /** `write`'s answer; undefined when it failed, or when the change was proposed (then `proposed` runs). */
  const submit = async <T,>(change: ProposedChange, write: () => Promise<T>, proposed: () => void): Promise<T | undefined> => {
    if (!review.propose)
      return action.run(() =>
        write().catch((error: unknown) => {
          if (isReviewRequired(error)) review.required();
          throw error;
        }),
      );
    const body = { environmentId: review.envId, title, changes: [change] };
    const request = await action.run(async () => unwrap(await client.api.POST('/api/v1/change-requests', { body })));
    if (request) review.onOpened(request), proposed();
    return undefined;
  };
  return { propose: review.propose, title, setTitle, busy: action.busy, error: action.error, submit };
}

/** The title a proposal asks for, shown only while the page proposes. */
export function TitleField({ form }: { form: ReturnType<typeof useWriteOrPropose> }) {
  if (!form.propose) return null;
  return (
    <label>
      Change request title
      <input
        value={form.title}
        onInput={(e) => form.setTitle((e.target as HTMLInputElement).value)}
        required
        maxLength={200}
        autocomplete="off"
      />
    </label>
  );
}

/**
 * The environment page's word on review: the policy's approvals when known, that changes made here are proposed,
 * and the change request just opened, each linked to the environment's change requests.
 */
export function ReviewBanner() {
  const { envId, propose, approvals, opened } = useReview();
  const count = approvals === null ? '' : `: ${approvals} approval${approvals === 1 ? '' : 's'}`;
  return (
    <>
      {(propose || approvals !== null) && (
        <div class="notice" role="note" aria-label="Review policy">
          Changes to this environment need review{count}.{propose && ' What you change here is proposed as a change request.'}{' '}
          <a href={changeRequestsOf(envId)}>View its change requests</a>
        </div>
      )}
      {opened && (
        <p class="notice" role="status">
          Change request <a href={`/console/change-requests/${opened.id}`}>{opened.title}</a> opened: it applies once approved and merged.
        </p>
      )}
    </>
  );
}
