import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useSession } from '../api.ts';
import { AdminError } from '../ui/admin-ui.tsx';
import { Time } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';
import { NewSyncForm } from './new-sync.tsx';
import { DestinationSummary, EnvironmentLink, SyncStatus, syncOf, syncsOf } from './sync-parts.tsx';

/**
 * `/console/syncs[?environmentId=…][&new]`: the workspace's syncs, newest first, or one environment's (in the address, so
 * an environment's page links them), each with where it writes, its keys, prune, status and last error; and a new
 * one, made for that environment when the list is one environment's (decisions.md v1.4, "Syncs"; admins only).
 */
export function Syncs() {
  useTitle('Syncs');
  const { client } = useSession();
  const { query, route } = useLocation();
  const environmentId = query.environmentId || undefined;
  const paged = usePaged(
    (cursor) =>
      client.api.GET('/api/v1/syncs', {
        params: { query: { ...(environmentId ? { environmentId } : {}), ...pageQuery(cursor, '50') } },
      }),
    [environmentId],
  );
  // `?new` (the environment page's New sync) opens the form at once.
  const [creating, setCreating] = useState(query.new !== undefined);
  return (
    <section>
      <h1>Syncs</h1>
      {environmentId && (
        <p>
          For the environment <EnvironmentLink id={environmentId} /> only. <a href={syncsOf()}>Every sync</a>
        </p>
      )}
      <div class="toolbar">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New sync
        </button>
        <button type="button" onClick={paged.reload}>
          Refresh
        </button>
      </div>
      {creating && <NewSyncForm environmentId={environmentId} onCreated={(made) => (setCreating(false), route(syncOf(made.id)))} />}
      <PagedTable
        paged={paged}
        what="syncs"
        empty={environmentId ? 'No syncs for this environment yet.' : 'No syncs yet.'}
        head={['Destination', 'Environment', 'Keys', 'Prune', 'Status', 'Last synced']}
        tableClass="syncs"
        failure={(error) => <AdminError error={error} />}
        row={(sync) => (
          <tr key={sync.id} class={sync.status === 'failing' ? 'failing' : undefined}>
            <td>
              <a href={syncOf(sync.id)}>
                <DestinationSummary destination={sync.destination} />
              </a>
            </td>
            <td>
              <EnvironmentLink id={sync.environmentId} />
            </td>
            <td>
              <code>{sync.keys}</code>
            </td>
            <td>{sync.prune ? 'yes' : 'no'}</td>
            <td>
              <SyncStatus status={sync.status} />
              {sync.lastError && <div class="danger-text last-error">{sync.lastError}</div>}
            </td>
            <td>
              <Time at={sync.lastSyncedAt} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
