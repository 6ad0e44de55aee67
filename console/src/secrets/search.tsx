import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useSession } from '../api.ts';
import { Time } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';
import { CurrentVersion } from './secrets-ui.tsx';

/**
 * `/console/search?q=`: the workspace's secrets whose key holds `q` (case-insensitive; every secret without it),
 * newest first, each linking to its history and its environment. Keys only: never a value.
 */
export function Search() {
  useTitle('Search');
  const { query, route } = useLocation();
  const q = query.q ?? '';
  const { client } = useSession();
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const paged = usePaged(
    (cursor) => client.api.GET('/api/v1/search/secrets', { params: { query: { ...pageQuery(cursor, '50'), ...(q ? { q } : {}) } } }),
    [q],
  );
  return (
    <section>
      <h1>Search</h1>
      <form
        class="inline"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const wanted = text.trim();
          route(wanted ? `/console/search?${new URLSearchParams({ q: wanted }).toString()}` : '/console/search');
        }}
      >
        <label>
          Key contains
          <input
            type="search"
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
            maxLength={256}
            autocomplete="off"
            spellcheck={false}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <PagedTable
        paged={paged}
        what="secrets"
        empty={q ? `No key contains “${q}”.` : 'No secrets yet.'}
        head={['Key', 'Environment', 'Version', 'Updated']}
        row={(secret) => (
          <tr key={secret.id}>
            <td>
              <a href={`/console/secrets/${secret.id}`}>
                <code>{secret.key}</code>
              </a>
            </td>
            <td>
              <a href={`/console/environments/${secret.environmentId}`}>{`${secret.projectSlug}/${secret.envSlug}`}</a>
            </td>
            <td>
              <CurrentVersion version={secret.currentVersion} />
            </td>
            <td>
              <Time at={secret.updatedAt} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
