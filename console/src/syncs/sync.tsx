import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { AdminError } from '../ui/admin-ui.tsx';
import { ConfirmDialog, ErrorBox, Loading, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { useTitle } from '../ui/title.ts';
import { SyncSettings } from './sync-settings.tsx';
import { DestinationSummary, EnvironmentLink, SyncStatus, syncsOf, type SyncItem } from './sync-parts.tsx';

/** How often the page reads the sync again: its worker pushes within seconds, and the status should follow. */
const REFRESH_MS = 3000;

/**
 * `/console/syncs/{syncId}`: one sync (`GET /api/v1/syncs/{id}`; another workspace's is NOT_FOUND), its status and last
 * error kept fresh while the page is open, and what an admin does with it: run it now, pause or resume it, change its
 * keys, prune or GitHub token, delete it (decisions.md v1.4, "Syncs").
 */
export function Sync() {
  const { client } = useSession();
  const syncId = useRoute().params.syncId ?? '';
  const sync = useLoaded(async () => unwrap(await client.api.GET('/api/v1/syncs/{id}', { params: { path: { id: syncId } } })), [syncId], {
    keep: true,
  });
  const data = sync.value;
  // A sync that could not be read (gone, or not this workspace's) is not asked for again and again.
  const readable = data !== undefined || !sync.error;
  useEffect(() => {
    if (!readable) return undefined;
    const timer = setInterval(() => document.visibilityState === 'visible' && sync.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [syncId, readable]);
  useTitle('Sync', data?.destination.type);
  return (
    <section class="sync">
      <p>
        <a href={syncsOf(data?.environmentId)}>← Syncs</a>
      </p>
      <h1>Sync</h1>
      {sync.loading && !data && <Loading what="the sync" />}
      {!data && <AdminError error={sync.error} />}
      {data && (
        <>
          <SyncDetails sync={data} />
          <SyncActions sync={data} onChanged={sync.reload} />
          <h2>Settings</h2>
          <SyncSettings key={data.id} sync={data} onSaved={sync.reload} />
        </>
      )}
    </section>
  );
}

/** Run now (a full sync, queued: 202), pause or resume, and delete after a confirmation. */
function SyncActions({ sync, onChanged }: { sync: SyncItem; onChanged: () => void }) {
  const { client } = useSession();
  const { route } = useLocation();
  const action = useAction();
  const [queued, setQueued] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const path = { params: { path: { id: sync.id } } };
  const run = async () => {
    setQueued(false);
    const done = await action.run(async () => unwrap(await client.api.POST('/api/v1/syncs/{id}/run', path)));
    if (done) setQueued(true), onChanged();
  };
  const setPaused = async (paused: boolean) => {
    const done = await action.run(async () => unwrap(await client.api.PATCH('/api/v1/syncs/{id}', { ...path, body: { paused } })));
    if (done) onChanged();
  };
  const remove = async () => {
    setDeleting(false);
    const done = await action.run(async () => unwrap(await client.api.DELETE('/api/v1/syncs/{id}', path)));
    if (done) route(syncsOf(sync.environmentId));
  };
  const paused = sync.status === 'paused';
  return (
    <div class="sync-actions">
      <button type="button" class="primary" onClick={() => void run()} disabled={action.busy}>
        Run now
      </button>
      <button type="button" onClick={() => void setPaused(!paused)} disabled={action.busy}>
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" class="danger" onClick={() => setDeleting(true)} disabled={action.busy}>
        Delete
      </button>
      {queued && (
        <p class="muted" role="status">
          A full sync is queued.
        </p>
      )}
      {deleting && (
        <ConfirmDialog
          text="Delete this sync? What it wrote stays at the destination."
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(false)}
        />
      )}
      <ErrorBox error={action.error} />
    </div>
  );
}

const FIELD_LABELS: Record<string, string> = {
  repository: 'Repository',
  environment: 'GitHub environment',
  apiUrl: 'API URL',
  region: 'Region',
  pathPrefix: 'Path prefix',
  namePrefix: 'Name prefix',
  roleArn: 'Role ARN',
  externalId: 'External ID',
  kmsKeyId: 'KMS key ID',
  mode: 'Mode',
};

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{children}</td>
    </tr>
  );
}

/** Every field of the sync as answered (a token never is), its status, last error and last push. */
function SyncDetails({ sync }: { sync: SyncItem }) {
  const fields = Object.entries(sync.destination).filter(([name, value]) => name !== 'type' && typeof value === 'string');
  return (
    <table class="details" aria-label="Sync">
      <tbody>
        <Row label="Destination">
          <DestinationSummary destination={sync.destination} />
        </Row>
        {fields.map(([name, value]) => (
          <Row key={name} label={FIELD_LABELS[name] ?? name}>
            <code>{value}</code>
          </Row>
        ))}
        <Row label="Environment">
          <EnvironmentLink id={sync.environmentId} />
        </Row>
        <Row label="Keys">
          <code>{sync.keys}</code>
        </Row>
        <Row label="Prune">{sync.prune ? 'yes' : 'no'}</Row>
        <Row label="Status">
          <SyncStatus status={sync.status} />
        </Row>
        <Row label="Last error">
          {sync.lastError ? <span class="danger-text last-error">{sync.lastError}</span> : <span class="muted">—</span>}
        </Row>
        <Row label="Last synced">
          <Time at={sync.lastSyncedAt} />
        </Row>
        <Row label="ID">
          <code>{sync.id}</code>
        </Row>
        <Row label="Created">
          <Time at={sync.createdAt} />
        </Row>
      </tbody>
    </table>
  );
}
