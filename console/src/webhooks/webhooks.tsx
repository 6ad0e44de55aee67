import { useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { ConfirmDialog, ErrorBox, Loading, Time, useAction } from '../ui/components.tsx';
import { AdminError, OnceSecret, valueOf, type Schemas } from '../ui/admin-ui.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';

type Endpoint = Schemas['WebhookEndpoint'];
/** An event type an endpoint can subscribe to (`service.ping` is not one: it goes to one endpoint on request). */
type Subscribable = paths['/api/v1/webhooks']['post']['requestBody']['content']['application/json']['events'][number];

/** `/console/webhooks`: the workspace's endpoints; register one (its signing secret shown once), pause, resume, delete. */
export function Webhooks() {
  useTitle('Webhooks');
  const { client } = useSession();
  const paged = usePaged((cursor) => client.api.GET('/api/v1/webhooks', { params: { query: pageQuery(cursor, '50') } }), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Schemas['WebhookEndpointCreated'] | null>(null);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const change = useAction();
  const setEnabled = async (endpoint: Endpoint, enabled: boolean) => {
    const done = await change.run(async () =>
      unwrap(await client.api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { enabled } })),
    );
    if (done) paged.reload();
  };
  const remove = async (endpoint: Endpoint) => {
    setDeleting(null);
    const done = await change.run(async () =>
      unwrap(await client.api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: endpoint.id } } })),
    );
    if (done) paged.reload();
  };
  return (
    <section>
      <h1>Webhooks</h1>
      {created && (
        <OnceSecret label="Signing secret" value={created.secret} onDismiss={() => setCreated(null)}>
          <p>
            For <code>{created.url}</code>: verify each delivery's <code>Service-Signature</code> with it (the whole <code>whsec_…</code>{' '}
            string is the key).
          </p>
        </OnceSecret>
      )}
      <p>
        <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New endpoint
        </button>
      </p>
      {creating && <NewEndpointForm onCreated={(made) => (setCreated(made), setCreating(false), paged.reload())} />}
      {deleting && (
        <ConfirmDialog
          text={`Delete the endpoint ${deleting.url} and its delivery log?`}
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
      <ErrorBox error={change.error} />
      <PagedTable
        paged={paged}
        what="webhook endpoints"
        empty="No webhook endpoints yet."
        head={['URL', 'Events', 'Status', 'Failures', 'Secret']}
        actions
        tableClass="endpoints"
        failure={(error) => <AdminError error={error} />}
        row={(endpoint) => (
          <tr key={endpoint.id}>
            <td>
              <a href={`/console/webhooks/${endpoint.id}`}>{endpoint.url}</a>
              {endpoint.description && <div class="muted">{endpoint.description}</div>}
            </td>
            <td>
              {endpoint.events.map((type) => (
                <code key={type}>{type}</code>
              ))}
            </td>
            <td>
              <EndpointStatus endpoint={endpoint} />
            </td>
            <td>
              {endpoint.consecutiveFailures}
              {endpoint.failingSince && (
                <div class="muted">
                  since <Time at={endpoint.failingSince} />
                </div>
              )}
            </td>
            <td>
              <code class="secret-hint">{endpoint.secretHint}</code>
            </td>
            <td class="row-actions">
              <button
                type="button"
                aria-label={`${endpoint.enabled ? 'Pause' : 'Resume'} ${endpoint.url}`}
                onClick={() => void setEnabled(endpoint, !endpoint.enabled)}
                disabled={change.busy}
              >
                {endpoint.enabled ? 'Pause' : 'Resume'}
              </button>
              <button type="button" class="danger" aria-label={`Delete ${endpoint.url}`} onClick={() => setDeleting(endpoint)}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/** Enabled, paused by a person, or switched off by the service (with why and when). */
export function EndpointStatus({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.enabled) return <span class="ok-text">enabled</span>;
  if (endpoint.disabledReason === 'paused') return <span class="muted">paused</span>;
  return (
    <span class="danger-text">
      disabled{endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''} <Time at={endpoint.disabledAt} />
    </span>
  );
}

/** A new endpoint: its https url, the event types it subscribes to (the API's list), a description. */
function NewEndpointForm({ onCreated }: { onCreated: (created: Schemas['WebhookEndpointCreated']) => void }) {
  const { client } = useSession();
  const types = useLoaded(async () => unwrap(await client.api.GET('/api/v1/webhooks/event-types')), []);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = { url, events: events as Subscribable[], ...(description ? { description } : {}) };
    const made = await create.run(async () => unwrap(await client.api.POST('/api/v1/webhooks', { body })));
    if (made) onCreated(made);
  };
  return (
    <form class="endpoint-form" aria-label="New endpoint" onSubmit={submit}>
      <div class="fields">
        <label>
          URL
          <input
            type="url"
            value={url}
            onInput={(e) => setUrl(valueOf(e))}
            required
            maxLength={2048}
            placeholder="https://example.com/webhooks"
            size={48}
          />
        </label>
        <label>
          Description
          <input value={description} onInput={(e) => setDescription(valueOf(e))} maxLength={280} />
        </label>
      </div>
      <fieldset>
        <legend>Events</legend>
        {types.loading && <Loading what="event types" />}
        <ErrorBox error={types.error} />
        {types.value?.map(({ type, description: about }) => (
          <label class="check" key={type} title={about}>
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) =>
                setEvents((e.currentTarget as HTMLInputElement).checked ? [...events, type] : events.filter((t) => t !== type))
              }
            />
            {type}
          </label>
        ))}
      </fieldset>
      <button type="submit" class="primary" disabled={create.busy || events.length === 0}>
        Add endpoint
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}
