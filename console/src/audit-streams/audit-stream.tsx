import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { AdminError } from '../ui/admin-ui.tsx';
import { ConfirmDialog, ErrorBox, Loading, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { useTitle } from '../ui/title.ts';
import { StreamSettings } from './stream-settings.tsx';
import { SendTest } from './stream-test.tsx';
import { LastError, StreamDestination, STREAMS_PATH, StreamStatus, type StreamItem } from './stream-parts.tsx';

/**
 * `/console/audit-streams/{id}`: one audit stream (another workspace's is NOT_FOUND), its receiver, status and last
 * delivery, and what an admin does with it: disable or enable it, send it a test entry, change its url or
 * credentials, delete it (decisions.md v1.4, "Audit streams and tamper evidence").
 */
export function AuditStream() {
  const { client } = useSession();
  const id = useRoute().params.streamId ?? '';
  const stream = useLoaded(async () => unwrap(await client.api.GET('/api/v1/audit-streams/{id}', { params: { path: { id } } })), [id], {
    keep: true,
  });
  const data = stream.value;
  useTitle('Audit stream', data?.type);
  return (
    <section class="audit-stream">
      <p>
        <a href={STREAMS_PATH}>← Audit streams</a>
      </p>
      <h1>Audit stream</h1>
      {stream.loading && !data && <Loading what="the audit stream" />}
      {!data && <AdminError error={stream.error} />}
      {data && (
        <>
          <StreamDetails stream={data} />
          <StreamActions stream={data} onChanged={stream.reload} />
          <h2>Settings</h2>
          <StreamSettings key={data.id} stream={data} onSaved={stream.reload} />
        </>
      )}
    </section>
  );
}

/** Disable or enable (`status`), send a test entry, and delete after a confirmation. */
function StreamActions({ stream, onChanged }: { stream: StreamItem; onChanged: () => void }) {
  const { client } = useSession();
  const { route } = useLocation();
  const action = useAction();
  const [deleting, setDeleting] = useState(false);
  const path = { params: { path: { id: stream.id } } };
  const setStatus = async (status: StreamItem['status']) => {
    const done = await action.run(async () => unwrap(await client.api.PATCH('/api/v1/audit-streams/{id}', { ...path, body: { status } })));
    if (done) onChanged();
  };
  const remove = async () => {
    setDeleting(false);
    const done = await action.run(async () => unwrap(await client.api.DELETE('/api/v1/audit-streams/{id}', path)));
    if (done) route(STREAMS_PATH);
  };
  const active = stream.status === 'active';
  return (
    <div class="sync-actions">
      <button type="button" onClick={() => void setStatus(active ? 'disabled' : 'active')} disabled={action.busy}>
        {active ? 'Disable' : 'Enable'}
      </button>
      <SendTest stream={stream} onSent={onChanged} />
      <button type="button" class="danger" onClick={() => setDeleting(true)} disabled={action.busy}>
        Delete
      </button>
      {deleting && (
        <ConfirmDialog
          text="Delete this audit stream? Nothing more is delivered to it."
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(false)}
        />
      )}
      <ErrorBox error={action.error} />
    </div>
  );
}

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{children}</td>
    </tr>
  );
}

/** Every field of the stream as answered: header names and the secret's hint, never a credential. */
function StreamDetails({ stream }: { stream: StreamItem }) {
  return (
    <table class="details" aria-label="Audit stream">
      <tbody>
        <Row label="Receiver">
          <StreamDestination stream={stream} />
        </Row>
        {stream.type === 'https' && (
          <>
            <Row label="Headers">
              {stream.headers.length ? stream.headers.map((name) => <code key={name}>{name}</code>) : <span class="muted">none</span>}
            </Row>
            <Row label="Signing secret">
              <code class="secret-hint">{stream.secretHint}</code>
            </Row>
          </>
        )}
        <Row label="Status">
          <StreamStatus status={stream.status} />
        </Row>
        <Row label="Last delivered">
          <Time at={stream.lastDeliveredAt} />
        </Row>
        <Row label="Failing since">
          <Time at={stream.failingSince} />
        </Row>
        <Row label="Last error">
          <LastError stream={stream} />
        </Row>
        <Row label="ID">
          <code>{stream.id}</code>
        </Row>
        <Row label="Created">
          <Time at={stream.createdAt} />
        </Row>
      </tbody>
    </table>
  );
}
