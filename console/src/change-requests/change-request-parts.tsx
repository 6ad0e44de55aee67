import { useEffect, useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { Empty, ErrorBox, Time, useAction } from '../ui/components.tsx';
import { REVEAL_MS } from '../secrets/secrets-row.tsx';
import type { ChangeRequestItem } from './review-context.tsx';

type Change = ChangeRequestItem['changes'][number];

/**
 * A request's changes as a diff: each key, what it does (set or delete) and the version it was proposed on; a set's
 * value stays hidden until its row's `Reveal` (audited by the API as a reveal of the proposed value).
 */
export function Changes({ request }: { request: ChangeRequestItem }) {
  return (
    <table class="changes" aria-label="Changes">
      <thead>
        <tr>
          <th>Key</th>
          <th>Change</th>
          <th>Base version</th>
          <th>Proposed value</th>
        </tr>
      </thead>
      <tbody>
        {request.changes.map((change) => (
          <ChangeRow key={change.key} requestId={request.id} change={change} />
        ))}
      </tbody>
    </table>
  );
}

/** One key of the diff; its proposed value on request until `Hide` or 30 s, as a secret's value. */
function ChangeRow({ requestId, change }: { requestId: string; change: Change }) {
  const { client } = useSession();
  const [value, setValue] = useState<string | null>(null);
  const reveal = useAction();
  useEffect(() => {
    if (value === null) return undefined;
    const timer = setTimeout(() => setValue(null), REVEAL_MS);
    return () => clearTimeout(timer);
  }, [value]);
  const show = async () => {
    const path = { id: requestId, key: change.key };
    const answer = await reveal.run(async () =>
      unwrap(await client.api.POST('/api/v1/change-requests/{id}/changes/{key}/reveal', { params: { path } })),
    );
    if (answer) setValue(answer.value);
  };
  const set = change.action === 'set';
  return (
    <tr class={`change-${change.action}`}>
      <td>
        <code>{change.key}</code>
      </td>
      <td>{set ? 'set' : 'delete'}</td>
      <td>{change.baseVersion === 0 ? <span class="muted">new key</span> : change.baseVersion}</td>
      <td class="value-cell">
        {!set ? (
          <span class="muted">deleted</span>
        ) : value !== null ? (
          <span class="revealed">
            {value === '' ? <span class="muted">(empty)</span> : <code class="value">{value}</code>}
            <button type="button" onClick={() => setValue(null)}>
              Hide
            </button>
          </span>
        ) : (
          <span class="revealed">
            <span class="masked" role="img" aria-label="hidden">
              ••••••••
            </span>
            <button type="button" onClick={show} disabled={reveal.busy} aria-label={`Reveal ${change.key}`}>
              Reveal
            </button>
          </span>
        )}
        <ErrorBox error={reveal.error} />
      </td>
    </tr>
  );
}

/** Who reviewed the request, how, and what they said. */
export function Reviews({ reviews }: { reviews: ChangeRequestItem['reviews'] }) {
  if (reviews.length === 0) return <Empty>No reviews yet.</Empty>;
  return (
    <ul class="plain reviews" aria-label="Reviews">
      {reviews.map((review) => (
        <li key={review.reviewerSub}>
          <strong class={review.decision === 'approve' ? 'ok-text' : 'danger-text'}>
            {review.decision === 'approve' ? 'Approved' : 'Rejected'}
          </strong>{' '}
          by <code>{review.reviewerSub}</code> <Time at={review.createdAt} />
          {review.comment && <p class="review-comment">{review.comment}</p>}
        </li>
      ))}
    </ul>
  );
}

/**
 * Approve or reject, with an optional comment. The API decides who may (never the author, nor a machine token) and
 * its refusal shows as it comes, FORBIDDEN included.
 */
export function ReviewForm({ requestId, onReviewed }: { requestId: string; onReviewed: (request: ChangeRequestItem) => void }) {
  const { client } = useSession();
  const [comment, setComment] = useState('');
  const review = useAction();
  const decide = async (decision: 'approve' | 'reject') => {
    const body = comment.trim() ? { decision, comment } : { decision };
    const reviewed = await review.run(async () =>
      unwrap(await client.api.POST('/api/v1/change-requests/{id}/reviews', { params: { path: { id: requestId } }, body })),
    );
    if (reviewed) setComment(''), onReviewed(reviewed);
  };
  return (
    <form class="review-form" aria-label="Review" onSubmit={(event) => event.preventDefault()}>
      <label>
        Comment
        <textarea rows={2} maxLength={4000} value={comment} onInput={(e) => setComment((e.target as HTMLTextAreaElement).value)} />
      </label>
      <div class="actions">
        <button type="button" class="primary" disabled={review.busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={review.busy} onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
      <ErrorBox error={review.error} />
    </form>
  );
}
