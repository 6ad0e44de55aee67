import type { paths } from '@secrets-service/sdk/client';
import { valueOf } from '../ui/admin-ui.tsx';

/** An audit stream as the API answers it (decisions.md v1.4, "Audit streams and tamper evidence"): never a credential. */
export type StreamItem = paths['/api/v1/audit-streams/{id}']['get']['responses'][200]['content']['application/json']['data'];
/** The create answer: an https stream's carries its signing secret, this once. */
export type StreamCreated = paths['/api/v1/audit-streams']['post']['responses'][201]['content']['application/json']['data'];
export type NewStreamBody = paths['/api/v1/audit-streams']['post']['requestBody']['content']['application/json'];
export type StreamChange = paths['/api/v1/audit-streams/{id}']['patch']['requestBody']['content']['application/json'];
export type StreamType = StreamItem['type'];
export type DatadogSite = Extract<StreamItem, { type: 'datadog' }>['site'];

/** Where the console shows a stream, and the list of them. */
export const streamOf = (id: string) => `/console/audit-streams/${id}`;
export const STREAMS_PATH = '/console/audit-streams';

/** The receivers a stream delivers to, as the form names them. */
export const STREAM_TYPES: { type: StreamType; label: string }[] = [
  { type: 'https', label: 'HTTPS (signed NDJSON)' },
  { type: 'splunk-hec', label: 'Splunk HEC' },
  { type: 'datadog', label: 'Datadog' },
];

// Every Datadog site the API takes: `satisfies` fails the build when the API's list gains or loses one.
const SITE_SET = {
  'datadoghq.com': 1,
  'us3.datadoghq.com': 1,
  'us5.datadoghq.com': 1,
  'datadoghq.eu': 1,
  'ap1.datadoghq.com': 1,
  'ap2.datadoghq.com': 1,
  'uk1.datadoghq.com': 1,
  'ddog-gov.com': 1,
} satisfies Record<DatadogSite, 1>;
export const DATADOG_SITES = Object.keys(SITE_SET) as DatadogSite[];

/** The Datadog site, chosen from the API's list. */
export function SiteSelect({ value, onChoose }: { value: DatadogSite; onChoose: (site: DatadogSite) => void }) {
  return (
    <label>
      Site
      <select value={value} onChange={(e) => onChoose(valueOf(e) as DatadogSite)}>
        {DATADOG_SITES.map((site) => (
          <option key={site} value={site}>
            {site}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Active, or disabled (by a person, or after 3 days of failures): disabled stands out. */
export function StreamStatus({ status }: { status: StreamItem['status'] }) {
  return <span class={status === 'active' ? 'ok-text' : 'danger-text'}>{status}</span>;
}

/** The receiver's kind and where it is: the url, or the Datadog site. */
export function StreamDestination({ stream }: { stream: StreamItem }) {
  const label = STREAM_TYPES.find((option) => option.type === stream.type)?.label ?? stream.type;
  return (
    <span>
      <span class="muted">{label}</span> <code>{stream.type === 'datadog' ? stream.site : stream.url}</code>
    </span>
  );
}

/** Why the last delivery failed: the receiver's status (or none answered) and its reason. */
export function LastError({ stream }: { stream: StreamItem }) {
  const error = stream.lastError;
  if (!error) return <span class="muted">—</span>;
  return (
    <span class="danger-text last-error">
      {error.statusCode ?? 'no answer'}: {error.reason}
    </span>
  );
}

/** A header typed into the form: its name in plain text, its value (often a credential) in a password field. */
export interface HeaderRow {
  name: string;
  value: string;
}

/** The headers the rows name, or undefined when none is filled (the API's rules name a bad one). */
export function headersOf(rows: HeaderRow[]): Record<string, string> | undefined {
  const filled = rows.filter((row) => row.name.trim() !== '');
  return filled.length ? Object.fromEntries(filled.map((row) => [row.name.trim(), row.value])) : undefined;
}

/** Rows of header name and value, one more on `Add header`. */
export function HeaderFields({ rows, onRows }: { rows: HeaderRow[]; onRows: (rows: HeaderRow[]) => void }) {
  const set = (i: number, change: Partial<HeaderRow>) => onRows(rows.map((row, j) => (i === j ? { ...row, ...change } : row)));
  return (
    <fieldset>
      <legend>Headers</legend>
      {rows.map((row, i) => (
        <div class="fields" key={i}>
          <label>
            Header name {i + 1}
            <input value={row.name} onInput={(e) => set(i, { name: valueOf(e) })} maxLength={64} spellcheck={false} autocomplete="off" />
          </label>
          <label>
            Header value {i + 1}
            <input type="password" value={row.value} onInput={(e) => set(i, { value: valueOf(e) })} autocomplete="new-password" />
          </label>
        </div>
      ))}
      <button type="button" onClick={() => onRows([...rows, { name: '', value: '' }])} disabled={rows.length >= 10}>
        Add header
      </button>
    </fieldset>
  );
}
