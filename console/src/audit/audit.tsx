import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useSession } from '../api.ts';
import { AdminError, compactJson, fromUtcInput, toUtcInput, valueOf, type Schemas } from '../ui/admin-ui.tsx';
import { Time } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';

type AuditAction = Schemas['AuditEntry']['action'];

/** Every action of the audit log (decisions.md, "Audit" and after); `satisfies` fails the build when one is missing. */
const ACTION_SET = {
  'project.create': 1,
  'environment.create': 1,
  'secret.create': 1,
  'secret.rotate': 1,
  'secret.reveal': 1,
  'secret.delete': 1,
  'secret.restore': 1,
  'secret.tag': 1,
  'secret.stage': 1,
  'secret.rotation_configure': 1,
  'secret.rotation_failed': 1,
  'secret.rotation_succeeded': 1,
  'secret.rotation_start': 1,
  'secret.write_repeated': 1,
  'access_key.create': 1,
  'access_key.revoke': 1,
  'access_key.update': 1,
  'access_key.login': 1,
  'access_key.login_denied': 1,
  'access.denied': 1,
  'webhook_endpoint.create': 1,
  'webhook_endpoint.update': 1,
  'webhook_endpoint.delete': 1,
  'webhook_endpoint.disabled': 1,
  'webhook_delivery.retry': 1,
  'webhook_endpoint.test': 1,
  'webhook_endpoint.recover': 1,
  'webhook_endpoint.secret_rotate': 1,
  'api_key.create': 1,
  'api_key.revoke': 1,
  'workspace.allowlist_add': 1,
  'workspace.allowlist_remove': 1,
  'review_policy.set': 1,
  'review_policy.delete': 1,
  'change_request.open': 1,
  'change_request.review': 1,
  'change_request.merge': 1,
  'change_request.close': 1,
  'sync.create': 1,
  'sync.update': 1,
  'sync.delete': 1,
  'audit_stream.create': 1,
  'audit_stream.update': 1,
  'audit_stream.delete': 1,
  'audit_stream.test': 1,
} satisfies Record<AuditAction, 1>;
const ACTIONS = Object.keys(ACTION_SET).sort() as AuditAction[];

const FILTERS = ['action', 'target', 'actorSub', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];
type Filters = Partial<Record<Filter, string>>;

/** The filters the address names (so a filtered log can be bookmarked), the unknown parameters left out. */
function filtersOf(query: Record<string, string>): Filters {
  return Object.fromEntries(FILTERS.filter((name) => query[name]).map((name) => [name, query[name]]));
}

/** The address of the log with `filters`. */
function addressOf(filters: Filters): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value) as [string, string][]).toString();
  return `/console/audit${query ? `?${query}` : ''}`;
}

/** The form's fields for `filters`: times as UTC `datetime-local` values. */
function draftOf(filters: Filters): Record<Filter, string> {
  const time = (iso: string | undefined) => (iso && !Number.isNaN(Date.parse(iso)) ? toUtcInput(new Date(iso)) : '');
  return {
    action: filters.action ?? '',
    target: filters.target ?? '',
    actorSub: filters.actorSub ?? '',
    since: time(filters.since),
    until: time(filters.until),
  };
}

/** `/console/audit`: the workspace's audit log, newest first, filtered by action, target, actor and time. */
export function Audit() {
  useTitle('Audit log');
  const { client } = useSession();
  const { query, route } = useLocation();
  const applied = filtersOf(query);
  const key = addressOf(applied);
  const [draft, setDraft] = useState(draftOf(applied));
  useEffect(() => setDraft(draftOf(applied)), [key]);
  const paged = usePaged(
    (cursor) =>
      client.api.GET('/api/v1/audit', {
        params: { query: { ...pageQuery(cursor, '50'), ...(applied as Omit<Filters, 'action'> & { action?: AuditAction }) } },
      }),
    [key],
  );
  const field = (name: Filter) => (event: Event) => {
    const value = valueOf(event);
    setDraft((current) => ({ ...current, [name]: value }));
  };
  const apply = (event: Event) => {
    event.preventDefault();
    route(addressOf({ ...draft, since: fromUtcInput(draft.since), until: fromUtcInput(draft.until) }));
  };
  return (
    <section>
      <h1>Audit log</h1>
      <form class="inline filters" aria-label="Filters" onSubmit={apply}>
        <label>
          Action
          <select value={draft.action} onChange={field('action')}>
            <option value="">Any action</option>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          Target
          <input value={draft.target} onInput={field('target')} placeholder="sec_…, we_…, ak_…" maxLength={256} />
        </label>
        <label>
          Actor
          <input value={draft.actorSub} onInput={field('actorSub')} placeholder="usr_…, key_…, mid_…" maxLength={256} />
        </label>
        <label>
          Since (UTC)
          <input type="datetime-local" value={draft.since} onInput={field('since')} />
        </label>
        <label>
          Until (UTC)
          <input type="datetime-local" value={draft.until} onInput={field('until')} />
        </label>
        <button type="submit" class="primary">
          Apply filters
        </button>
        <button type="button" onClick={() => route('/console/audit')} disabled={key === '/console/audit'}>
          Clear
        </button>
      </form>
      <PagedTable
        paged={paged}
        what="the audit log"
        empty={`No audit entries${key === '/console/audit' ? '' : ' match these filters'}.`}
        head={['Time', 'Action', 'Actor', 'Target', 'Metadata']}
        tableClass="audit"
        failure={(error) => <AdminError error={error} />}
        row={(entry) => <AuditRow key={entry.id} entry={entry} applied={applied} />}
      />
    </section>
  );
}

/** An entry: when, what, who, on what, and the metadata as one line of JSON (never a value: the API keeps none). */
function AuditRow({ entry, applied }: { entry: Schemas['AuditEntry']; applied: Filters }) {
  const only = (name: Filter, value: string) => addressOf({ ...applied, [name]: value });
  return (
    <tr>
      <td class="nowrap">
        <Time at={entry.createdAt} />
      </td>
      <td class="nowrap">
        <code>{entry.action}</code>
      </td>
      <td>
        <a href={only('actorSub', entry.actorSub)} title="Only this actor's entries">
          {entry.actorSub}
        </a>
      </td>
      <td>
        <a href={only('target', entry.target)} title="Only this target's entries">
          {entry.target}
        </a>
      </td>
      <td>
        <code class="metadata">{compactJson(entry.metadata)}</code>
      </td>
    </tr>
  );
}
