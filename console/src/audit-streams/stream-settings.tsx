import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { valueOf } from '../ui/admin-ui.tsx';
import { ErrorBox, useAction } from '../ui/components.tsx';
import { Credential } from './new-stream.tsx';
import {
  HeaderFields,
  headersOf,
  SiteSelect,
  type DatadogSite,
  type HeaderRow,
  type StreamChange,
  type StreamItem,
} from './stream-parts.tsx';

/** What the form holds: the url and site as the stream has them, credentials and headers empty until typed. */
interface Draft {
  url: string;
  site: DatadogSite;
  credential: string;
  headers: HeaderRow[];
  clearHeaders: boolean;
}

/** Only what changed: a url or site unlike the stream's, a credential typed, headers typed (replacing all) or removed. */
function changeOf(stream: StreamItem, draft: Draft): StreamChange {
  const credential = draft.credential.trim();
  if (stream.type === 'datadog')
    return { ...(draft.site !== stream.site && { site: draft.site }), ...(credential && { apiKey: credential }) };
  const url = draft.url.trim() !== stream.url ? { url: draft.url.trim() } : {};
  if (stream.type === 'splunk-hec') return { ...url, ...(credential && { token: credential }) };
  const headers = draft.clearHeaders ? null : headersOf(draft.headers);
  return { ...url, ...(headers !== undefined && { headers }) };
}

/**
 * A stream's url or site and credentials (`PATCH /api/v1/audit-streams/{id}`). Credential fields are write-only: the
 * API never answers one, the fields start empty and are emptied once the API has taken them. An unchanged form is
 * sent as it is, and the API says there is nothing to change.
 */
export function StreamSettings({ stream, onSaved }: { stream: StreamItem; onSaved: () => void }) {
  const { client } = useSession();
  const initial = (): Draft => ({
    url: stream.type === 'datadog' ? '' : stream.url,
    site: stream.type === 'datadog' ? stream.site : 'datadoghq.com',
    credential: '',
    headers: [],
    clearHeaders: false,
  });
  const [draft, setDraft] = useState<Draft>(initial);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const change = (fields: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...fields }));
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const body = changeOf(stream, draft);
    const done = await save.run(async () =>
      unwrap(await client.api.PATCH('/api/v1/audit-streams/{id}', { params: { path: { id: stream.id } }, body })),
    );
    if (done) setDraft({ ...initial(), url: draft.url, site: draft.site }), setSaved(true), onSaved();
  };
  return (
    <form class="endpoint-form" aria-label="Stream settings" onSubmit={submit}>
      <div class="fields">
        {stream.type !== 'datadog' && (
          <label>
            URL
            <input type="url" value={draft.url} onInput={(e) => change({ url: valueOf(e) })} required maxLength={2048} size={48} />
          </label>
        )}
        {stream.type === 'datadog' && <SiteSelect value={draft.site} onChoose={(site) => change({ site })} />}
        {stream.type !== 'https' && (
          <Credential
            label={stream.type === 'datadog' ? 'New API key' : 'New HEC token'}
            value={draft.credential}
            onValue={(credential) => change({ credential })}
            required={false}
          />
        )}
      </div>
      {stream.type === 'https' && <HttpsHeaders draft={draft} change={change} />}
      <button type="submit" class="primary" disabled={save.busy}>
        Save
      </button>
      {saved && (
        <span class="muted" role="status">
          {' '}
          Saved.
        </span>
      )}
      <ErrorBox error={save.error} />
    </form>
  );
}

/** New headers replace every header the stream has; or none at all. */
function HttpsHeaders({ draft, change }: { draft: Draft; change: (fields: Partial<Draft>) => void }) {
  return (
    <>
      <p class="muted">New headers replace every header the stream sends; leave them empty to keep the current ones.</p>
      {!draft.clearHeaders && <HeaderFields rows={draft.headers} onRows={(headers) => change({ headers })} />}
      <label class="check">
        <input
          type="checkbox"
          checked={draft.clearHeaders}
          onChange={(e) => change({ clearHeaders: (e.currentTarget as HTMLInputElement).checked })}
        />
        Remove every header
      </label>
    </>
  );
}
