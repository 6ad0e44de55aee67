import { useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { valueOf } from '../ui/admin-ui.tsx';
import { ErrorBox, useAction } from '../ui/components.tsx';
import { KeysAndPrune } from './new-sync.tsx';
import type { SyncItem } from './sync-parts.tsx';

type SyncChange = paths['/api/v1/syncs/{id}']['patch']['requestBody']['content']['application/json'];

/**
 * A sync's keys pattern and prune, and for GitHub a new token (`PATCH /api/v1/syncs/{id}`). The token field is
 * write-only: the API never answers a token, the field starts empty, and it is emptied once the API has taken it.
 */
export function SyncSettings({ sync, onSaved }: { sync: SyncItem; onSaved: () => void }) {
  const { client } = useSession();
  const [keys, setKeys] = useState(sync.keys);
  const [prune, setPrune] = useState(sync.prune);
  const [token, setToken] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const github = sync.destination.type === 'github-actions';
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const body: SyncChange = { keys, prune, ...(github && token ? { destination: { type: 'github-actions', token } } : {}) };
    const done = await save.run(async () =>
      unwrap(await client.api.PATCH('/api/v1/syncs/{id}', { params: { path: { id: sync.id } }, body })),
    );
    if (done) setToken(''), setSaved(true), onSaved();
  };
  return (
    <form class="endpoint-form sync-form" aria-label="Sync settings" onSubmit={submit}>
      <KeysAndPrune keys={keys} onKeys={setKeys} prune={prune} onPrune={setPrune} />
      {github && (
        <div class="fields">
          <label>
            New GitHub token <span class="muted">(leave empty to keep the current one)</span>
            <input type="password" value={token} onInput={(e) => setToken(valueOf(e))} autocomplete="new-password" spellcheck={false} />
          </label>
        </div>
      )}
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
