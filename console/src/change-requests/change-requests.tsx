import { useLocation, useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, Time } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';
import { changeRequestsOf } from './propose.tsx';
import type { ChangeRequestItem } from './review-context.tsx';

type Status = ChangeRequestItem['status'];

/** The statuses a list may keep (decisions.md, "Change requests"); `satisfies` fails the build when one is missing. */
const STATUS_SET = { open: 1, approved: 1, merged: 1, rejected: 1, closed: 1, expired: 1 } satisfies Record<Status, 1>;
const STATUSES = Object.keys(STATUS_SET) as Status[];

const statusOf = (value: string | undefined): Status | undefined => STATUSES.find((status) => status === value);

/**
 * `/console/environments/{envId}/change-requests[?status=…]`: the environment's change requests, newest first, kept to
 * one status by the filter (in the address, so a filtered list can be bookmarked), each linked to its page.
 */
export function ChangeRequests() {
  const envId = useRoute().params.envId ?? '';
  const { query, route } = useLocation();
  const status = statusOf(query.status);
  const { client } = useSession();
  const place = useLoaded(
    async () => unwrap(await client.api.GET('/api/v1/environments/{envId}', { params: { path: { envId } } })),
    [envId],
  );
  const paged = usePaged(
    (cursor) =>
      client.api.GET('/api/v1/change-requests', {
        params: { query: { environmentId: envId, ...(status ? { status } : {}), ...pageQuery(cursor, '50') } },
      }),
    [envId, status],
  );
  const environment = place.value;
  useTitle('Change requests', environment?.projectSlug, environment?.slug);
  const choose = (chosen: string) => route(`${changeRequestsOf(envId)}${chosen ? `?status=${chosen}` : ''}`);
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href="/console/projects">Projects</a> /{' '}
        {environment ? <a href={`/console/projects/${environment.projectId}`}>{environment.projectSlug}</a> : <span class="muted">…</span>}{' '}
        / <a href={`/console/environments/${envId}`}>{environment?.slug ?? envId}</a> /
      </nav>
      <h1>Change requests</h1>
      <ErrorBox error={place.error} />
      <div class="toolbar">
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PagedTable
        paged={paged}
        what="change requests"
        empty={status ? `No ${status} change requests.` : 'No change requests for this environment yet.'}
        head={['Title', 'Status', 'Keys', 'Author', 'Opened']}
        tableClass="change-requests"
        row={(request) => (
          <tr key={request.id}>
            <td>
              <a href={`/console/change-requests/${request.id}`}>{request.title}</a>
            </td>
            <td>
              <StatusBadge status={request.status} />
            </td>
            <td>
              {request.changes.map((change) => (
                <code key={change.key} class="tag">
                  {change.key}
                </code>
              ))}
            </td>
            <td>
              <code>{request.authorSub}</code>
            </td>
            <td>
              <Time at={request.createdAt} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/** A request's status, as a word with its own colour. */
export function StatusBadge({ status }: { status: Status }) {
  return <span class={`cr-status cr-${status}`}>{status}</span>;
}
