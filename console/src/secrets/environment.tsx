import { useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { DeletedSecrets } from './secrets-deleted.tsx';
import { SecretRow, type SecretRowItem } from './secrets-row.tsx';
import { useProgressive } from './secrets-ui.tsx';
import { useTitle } from '../ui/title.ts';
import { changeRequestsOf, ReviewBanner, TitleField, useWriteOrPropose } from '../change-requests/propose.tsx';
import { ReviewContext, useReviewState } from '../change-requests/review-context.tsx';
import { newSyncOf, syncsOf } from '../syncs/sync-parts.tsx';

/**
 * `/console/environments/{envId}`: the environment's secrets, one table row per key (never a value until a row's
 * `Reveal`), a filter over what is loaded with "Load more" for the rest, `New secret`, and the deleted secrets. The
 * environment and its project's slug come in one request (`GET /api/v1/environments/{envId}`), so its project is named
 * by slug, as the secret page names it. Under a review policy, its forms propose their change as a change request
 * (review-context.tsx), and a banner says so.
 */
export function Environment() {
  const { params } = useRoute();
  const envId = params.envId ?? '';
  const { client, credential } = useSession();
  const place = useLoaded(
    async () => unwrap(await client.api.GET('/api/v1/environments/{envId}', { params: { path: { envId } } })),
    [envId],
  );
  const paged = usePaged(
    (cursor) => client.api.GET('/api/v1/environments/{envId}/secrets', { params: { path: { envId }, query: pageQuery(cursor) } }),
    [envId],
  );
  // Rows written, deleted or restored on this page since it loaded (null: deleted), laid over the pages listed.
  const [changes, setChanges] = useState<Map<string, SecretRowItem | null>>(() => new Map());
  const [filter, setFilter] = useState('');
  const [creating, setCreating] = useState(false);
  const [deletions, setDeletions] = useState(0);
  useEffect(() => setChanges(new Map()), [envId]);
  const rows = useMemo(() => withChanges(paged.items, changes), [paged.items, changes]);
  const needle = filter.trim().toLowerCase();
  const matching = useMemo(() => (needle ? rows.filter((row) => row.key.toLowerCase().includes(needle)) : rows), [rows, needle]);
  const shown = useProgressive(matching, needle);
  const change = (id: string, row: SecretRowItem | null) => setChanges((previous) => new Map(previous).set(id, row));
  const { offers } = credential;
  const environment = place.value;
  const review = useReviewState(envId);
  useTitle('Secrets', environment?.projectSlug, environment?.slug);

  return (
    <ReviewContext.Provider value={review}>
      <section>
        <nav class="crumbs" aria-label="Breadcrumbs">
          <a href="/console/projects">Projects</a> /{' '}
          {environment ? (
            <a href={`/console/projects/${environment.projectId}`}>{environment.projectSlug}</a>
          ) : (
            <span class="muted">…</span>
          )}{' '}
          /
        </nav>
        <h1>{environment?.name ?? 'Environment'}</h1>
        <p class="muted">
          {environment ? <code>{`${environment.projectSlug}/${environment.slug}`}</code> : <code>{envId}</code>}{' '}
          <a href={changeRequestsOf(envId)}>Change requests</a>
          {offers.admin && (
            <>
              {' '}
              <a href={syncsOf(envId)}>Syncs</a> <a href={newSyncOf(envId)}>New sync</a>
            </>
          )}
        </p>
        <ErrorBox error={place.error} />
        <ReviewBanner />
        <div class="toolbar">
          <label>
            Filter
            <input
              type="search"
              value={filter}
              onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
              placeholder="part of a key"
              autocomplete="off"
              spellcheck={false}
            />
          </label>
          {offers.write && (
            <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
              New secret
            </button>
          )}
        </div>
        {creating && (
          <NewSecretForm
            envId={envId}
            onCancel={() => setCreating(false)}
            onSaved={(row) => {
              setCreating(false);
              change(row.id, row);
            }}
          />
        )}
        <PagedTable
          paged={paged}
          what="secrets"
          empty="No secrets in this environment yet."
          head={['Key', 'Version', 'Updated', 'Value']}
          actions
          tableClass="secrets"
          items={rows}
          shown={shown}
          summary={
            <p class="muted" role="status">
              {needle ? `${matching.length} of ${rows.length} keys match` : `${rows.length} ${rows.length === 1 ? 'key' : 'keys'}`}
              {paged.hasMore ? ' (more to load)' : ''}
            </p>
          }
          row={(row) => (
            <SecretRow
              key={row.id}
              secret={row}
              envId={envId}
              offers={offers}
              onChanged={(next) => change(next.id, next)}
              onDeleted={(id) => (change(id, null), setDeletions((n) => n + 1))}
            />
          )}
        />
        <DeletedSecrets
          envId={envId}
          generation={deletions}
          offers={offers}
          onRestored={(s) => change(s.id, { id: s.id, key: s.key, currentVersion: s.version, updatedAt: new Date().toISOString() })}
        />
      </section>
    </ReviewContext.Provider>
  );
}

/** The pages listed, with this page's own writes, deletes and restores laid over them, still sorted by key. */
function withChanges(listed: SecretRowItem[], changes: Map<string, SecretRowItem | null>): SecretRowItem[] {
  if (changes.size === 0) return listed;
  const seen = new Set<string>();
  const rows: SecretRowItem[] = [];
  for (const item of listed) {
    seen.add(item.id);
    const changed = changes.get(item.id);
    if (changed === null) continue;
    rows.push(changed && changed.currentVersion >= item.currentVersion ? changed : item);
  }
  const added = [...changes.values()].filter((row): row is SecretRowItem => row !== null && !seen.has(row.id));
  return added.length === 0 ? rows : [...rows, ...added].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * A new key: written with `If-Match: 0`, so a key that exists already is a CONFLICT, never overwritten; or, under
 * review, proposed (the form closes and the page links the change request).
 */
function NewSecretForm({ envId, onSaved, onCancel }: { envId: string; onSaved: (row: SecretRowItem) => void; onCancel: () => void }) {
  const { client } = useSession();
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const save = useWriteOrPropose();
  const submit = async (event: Event) => {
    event.preventDefault();
    const write = async () =>
      unwrap(
        await client.api.PUT('/api/v1/environments/{envId}/secrets', {
          params: { path: { envId }, header: { 'If-Match': '0' } },
          body: { key, value },
        }),
      );
    const written = await save.submit({ key, value }, write, onCancel);
    if (written) onSaved({ id: written.id, key: written.key, currentVersion: written.version, updatedAt: new Date().toISOString() });
  };
  return (
    <form class="inline new-secret" aria-label="New secret" onSubmit={submit}>
      <label>
        Key
        <input
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          required
          maxLength={256}
          autocomplete="off"
          spellcheck={false}
        />
      </label>
      <label>
        Value
        <textarea
          rows={2}
          value={value}
          onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)}
          maxLength={65536}
          autocomplete="off"
          spellcheck={false}
        />
      </label>
      <TitleField form={save} />
      <button type="submit" class="primary" disabled={save.busy}>
        {save.propose ? 'Propose' : 'Save'}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <ErrorBox error={save.error} />
    </form>
  );
}
