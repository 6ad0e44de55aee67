import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { valueOf } from '../ui/admin-ui.tsx';
import { ErrorBox, useAction } from '../ui/components.tsx';
import {
  HeaderFields,
  headersOf,
  SiteSelect,
  STREAM_TYPES,
  type DatadogSite,
  type HeaderRow,
  type NewStreamBody,
  type StreamCreated,
  type StreamType,
} from './stream-parts.tsx';

/** What the form holds: every type's fields, only the chosen type's sent. */
interface Draft {
  url: string;
  headers: HeaderRow[];
  token: string;
  site: DatadogSite;
  apiKey: string;
}

const EMPTY: Draft = { url: '', headers: [], token: '', site: 'datadoghq.com', apiKey: '' };

/** The request body of the chosen type: the API validates each field and names the one it refuses. */
function bodyOf(type: StreamType, draft: Draft): NewStreamBody {
  if (type === 'splunk-hec') return { type, url: draft.url.trim(), token: draft.token.trim() };
  if (type === 'datadog') return { type, site: draft.site, apiKey: draft.apiKey.trim() };
  const headers = headersOf(draft.headers);
  return { type, url: draft.url.trim(), ...(headers && { headers }) };
}

/**
 * A new audit stream: its type, then that type's fields, credentials in password fields the browser does not keep.
 * Once the API has taken it the form forgets every credential; the https secret goes up to the page, shown once.
 */
export function NewStreamForm({ onCreated }: { onCreated: (made: StreamCreated) => void }) {
  const { client } = useSession();
  const [type, setType] = useState<StreamType>('https');
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const create = useAction();
  const change = (fields: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...fields }));
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = bodyOf(type, draft);
    const made = await create.run(async () => unwrap(await client.api.POST('/api/v1/audit-streams', { body })));
    if (made) setDraft(EMPTY), onCreated(made);
  };
  return (
    <form class="endpoint-form" aria-label="New audit stream" onSubmit={submit}>
      <div class="fields">
        <label>
          Type
          <select value={type} onChange={(e) => setType(valueOf(e) as StreamType)}>
            {STREAM_TYPES.map((option) => (
              <option key={option.type} value={option.type}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        {type !== 'datadog' && (
          <label>
            URL
            <input
              type="url"
              value={draft.url}
              onInput={(e) => change({ url: valueOf(e) })}
              required
              maxLength={2048}
              size={48}
              placeholder={type === 'https' ? 'https://siem.example.com/audit' : 'https://splunk.example.com:8088'}
            />
          </label>
        )}
        {type === 'splunk-hec' && <Credential label="HEC token" value={draft.token} onValue={(token) => change({ token })} />}
        {type === 'datadog' && (
          <>
            <SiteSelect value={draft.site} onChoose={(site) => change({ site })} />
            <Credential label="API key" value={draft.apiKey} onValue={(apiKey) => change({ apiKey })} />
          </>
        )}
      </div>
      {type === 'https' && <HeaderFields rows={draft.headers} onRows={(headers) => change({ headers })} />}
      <button type="submit" class="primary" disabled={create.busy}>
        Create stream
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}

/** A credential's field: a password input the browser neither fills nor remembers. */
export function Credential({
  label,
  value,
  onValue,
  required = true,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
}) {
  return (
    <label>
      {label}
      <input
        type="password"
        value={value}
        onInput={(e) => onValue(valueOf(e))}
        required={required}
        autocomplete="new-password"
        spellcheck={false}
      />
    </label>
  );
}
