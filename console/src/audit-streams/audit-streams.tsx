import { useState } from 'preact/hooks';
import { useSession } from '../api.ts';
import { AdminError, OnceSecret } from '../ui/admin-ui.tsx';
import { Time } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';
import { NewStreamForm } from './new-stream.tsx';
import { LastError, StreamDestination, streamOf, StreamStatus, type StreamCreated } from './stream-parts.tsx';

/**
 * `/console/audit-streams`: the workspace's audit streams, newest first, each with its receiver, status, last delivery
 * and last error; and a new one, whose https signing secret is shown here once (decisions.md v1.4, "Audit streams and
 * tamper evidence"; admins only).
 */
export function AuditStreams() {
  useTitle('Audit streams');
  const { client } = useSession();
  const paged = usePaged((cursor) => client.api.GET('/api/v1/audit-streams', { params: { query: pageQuery(cursor, '50') } }), []);
  const [creating, setCreating] = useState(false);
  // The secret lives in this view's state alone: `Done`, or leaving the page, forgets it.
  const [created, setCreated] = useState<Extract<StreamCreated, { type: 'https' }> | null>(null);
  const onCreated = (made: StreamCreated) => {
    setCreating(false);
    if (made.type === 'https') setCreated(made);
    paged.reload();
  };
  return (
    <section>
      <h1>Audit streams</h1>
      {created && (
        <OnceSecret label="Signing secret" value={created.secret} onDismiss={() => setCreated(null)}>
          <p>
            For <a href={streamOf(created.id)}>{created.url}</a>: verify each batch's <code>Service-Signature</code> with it, as a webhook
            delivery's (the whole <code>whsec_…</code> string is the key). Store it now.
          </p>
        </OnceSecret>
      )}
      <div class="toolbar">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New stream
        </button>
        <button type="button" onClick={paged.reload}>
          Refresh
        </button>
      </div>
      {creating && <NewStreamForm onCreated={onCreated} />}
      <PagedTable
        paged={paged}
        what="audit streams"
        empty="No audit streams yet."
        head={['Receiver', 'Status', 'Last delivered', 'Last error']}
        tableClass="audit-streams"
        failure={(error) => <AdminError error={error} />}
        row={(stream) => (
          <tr key={stream.id}>
            <td>
              <a href={streamOf(stream.id)}>
                <StreamDestination stream={stream} />
              </a>
            </td>
            <td>
              <StreamStatus status={stream.status} />
            </td>
            <td>
              <Time at={stream.lastDeliveredAt} />
            </td>
            <td>
              <LastError stream={stream} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
