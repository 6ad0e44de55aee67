import { useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, Loading, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { useTitle } from '../ui/title.ts';
import { Changes, Reviews, ReviewForm } from './change-request-parts.tsx';
import { StatusBadge } from './change-requests.tsx';
import { changeRequestsOf } from './propose.tsx';
import type { ChangeRequestItem } from './review-context.tsx';

/**
 * `/console/change-requests/{id}`: one change request (decisions.md, "Change requests"): what it proposes, as a diff
 * whose values show only on `Reveal`; its reviews and, while it is open, approve or reject; `Merge` once approved,
 * `Close` until it is merged, closed or expired. Every refusal shows as the API gives it (a merge's stale keys listed).
 */
export function ChangeRequest() {
  const id = useRoute().params.id ?? '';
  const { client } = useSession();
  const loaded = useLoaded(async () => unwrap(await client.api.GET('/api/v1/change-requests/{id}', { params: { path: { id } } })), [id], {
    keep: true,
  });
  const request = loaded.value;
  useTitle('Change request', request?.title);
  return (
    <section class="change-request">
      {request && (
        <p>
          <a href={changeRequestsOf(request.environmentId)}>← Change requests</a>
        </p>
      )}
      <h1>{request?.title ?? 'Change request'}</h1>
      {loaded.loading && !request && <Loading what="the change request" />}
      <ErrorBox error={loaded.error} />
      {request && <Loaded request={request} onChanged={loaded.reload} />}
    </section>
  );
}

function Loaded({ request, onChanged }: { request: ChangeRequestItem; onChanged: () => void }) {
  return (
    <>
      <Details request={request} />
      <h2>Changes</h2>
      <Changes request={request} />
      <h2>Reviews</h2>
      <Reviews reviews={request.reviews} />
      {request.status === 'open' && <ReviewForm requestId={request.id} onReviewed={onChanged} />}
      <Actions request={request} onChanged={onChanged} />
    </>
  );
}

function Details({ request }: { request: ChangeRequestItem }) {
  return (
    <table class="details" aria-label="Change request">
      <tbody>
        <tr>
          <th scope="row">Status</th>
          <td>
            <StatusBadge status={request.status} />
          </td>
        </tr>
        <tr>
          <th scope="row">Author</th>
          <td>
            <code>{request.authorSub}</code>
          </td>
        </tr>
        {request.description && (
          <tr>
            <th scope="row">Description</th>
            <td class="description">{request.description}</td>
          </tr>
        )}
        <tr>
          <th scope="row">Environment</th>
          <td>
            <a href={`/console/environments/${request.environmentId}`}>
              <code>{request.environmentId}</code>
            </a>
          </td>
        </tr>
        <tr>
          <th scope="row">Opened</th>
          <td>
            <Time at={request.createdAt} />
          </td>
        </tr>
        <tr>
          <th scope="row">Updated</th>
          <td>
            <Time at={request.updatedAt} />
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/**
 * `Merge` (approved only: the API refuses any other status with CONFLICT) and `Close` (until merged, closed or
 * expired). Who may is the API's to say: the author or a reviewer merges, the author or an admin closes.
 */
function Actions({ request, onChanged }: { request: ChangeRequestItem; onChanged: () => void }) {
  const { client } = useSession();
  const act = useAction();
  const path = { params: { path: { id: request.id } } };
  const run = async (action: 'merge' | 'close') => {
    const done = await act.run(async () =>
      unwrap(
        action === 'merge'
          ? await client.api.POST('/api/v1/change-requests/{id}/merge', path)
          : await client.api.POST('/api/v1/change-requests/{id}/close', path),
      ),
    );
    if (done) onChanged();
  };
  const closable = ['open', 'approved', 'rejected'].includes(request.status);
  if (request.status !== 'approved' && !closable) return null;
  return (
    <div class="cr-actions">
      <div class="actions">
        {request.status === 'approved' && (
          <button type="button" class="primary" disabled={act.busy} onClick={() => void run('merge')}>
            Merge
          </button>
        )}
        {closable && (
          <button type="button" disabled={act.busy} onClick={() => void run('close')}>
            Close
          </button>
        )}
      </div>
      <ErrorBox error={act.error} />
    </div>
  );
}
