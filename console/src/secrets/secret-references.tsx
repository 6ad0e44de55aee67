import { useEffect, useState } from 'preact/hooks';
import { useSession } from '../api.ts';
import { CopyButton, ErrorBox, useAction } from '../ui/components.tsx';
import { REVEAL_MS } from './secrets-row.tsx';

/**
 * The reference fields of `GET /api/v1/secrets/{secretId}` (decisions.md v1.4, "Secret references"): `references`,
 * the targets of the current value by path, and `referencedBy`, the ids of the secrets whose value names this one.
 * Optional here until the generated types carry them; an answer without them shows none.
 */
export interface SecretReferenceFields {
  references?: string[];
  referencedBy?: string[];
}

/** `project/env/KEY` split at its last two slashes (a key may hold slashes, slugs never do). */
function keyOf(path: string): string {
  return path.split('/').slice(2).join('/');
}

/**
 * The secret's references and who references it, as two facts of its page. The console has no page by path, so a
 * target links to the search for its key (which lists it with its project and environment); a referencing secret
 * links to its own page by id.
 */
export function SecretReferences({ references = [], referencedBy = [] }: SecretReferenceFields) {
  return (
    <dl class="secret-references">
      <dt>References</dt>
      <dd>
        {references.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="plain" aria-label="References">
            {references.map((path) => (
              <li key={path}>
                <a href={`/console/search?${new URLSearchParams({ q: keyOf(path) }).toString()}`} title={`Find ${path}`}>
                  <code>{path}</code>
                </a>
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>Referenced by</dt>
      <dd>
        {referencedBy.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="plain" aria-label="Referenced by">
            {referencedBy.map((id) => (
              <li key={id}>
                <a href={`/console/secrets/${id}`}>
                  <code>{id}</code>
                </a>
              </li>
            ))}
          </ul>
        )}
      </dd>
    </dl>
  );
}

/**
 * `Show raw`: the current value as written (`?raw=true`), its `${…}` references left unresolved, so one can see
 * what it is made of; audited by the API as any reveal, and hidden again on `Hide` or after 30 s like a row's value.
 */
export function RawValue({ secretId }: { secretId: string }) {
  const { client } = useSession();
  const [raw, setRaw] = useState<string | null>(null);
  const reveal = useAction();
  useEffect(() => {
    if (raw === null) return;
    const timer = setTimeout(() => setRaw(null), REVEAL_MS);
    return () => clearTimeout(timer);
  }, [raw]);
  const show = async () => {
    const answer = await reveal.run(() => client.reveal(secretId, { raw: true }));
    if (answer) setRaw(answer.value);
  };
  return (
    <div class="raw-value">
      {raw === null ? (
        <button type="button" onClick={show} disabled={reveal.busy}>
          Show raw
        </button>
      ) : (
        <span class="revealed" aria-label="Raw value">
          {raw === '' ? <span class="muted">(empty)</span> : <code class="value">{raw}</code>}
          <button type="button" onClick={() => setRaw(null)}>
            Hide
          </button>
          <CopyButton value={() => raw} />
        </span>
      )}
      <ErrorBox error={reveal.error} />
    </div>
  );
}
