import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { valueOf } from '../ui/admin-ui.tsx';
import { ErrorBox, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { PAGE_LIMIT } from '../ui/paged.tsx';
import {
  DESTINATION_TYPES,
  DestinationFields,
  destinationOf,
  type DestinationType,
  type NewSyncBody,
  type SecretsManagerMode,
} from './destination-fields.tsx';
import { EnvironmentLink, type SyncItem } from './sync-parts.tsx';

/**
 * A new sync (decisions.md v1.4, "Syncs"): its environment (fixed when opened from one, else chosen by project), the
 * destination's type and fields, the keys pattern (default `**`) and prune. The API's VALIDATION_ERROR names the field
 * it refuses and is shown as it says it; the token leaves with the request and is not kept once the sync is made.
 */
export function NewSyncForm({ environmentId, onCreated }: { environmentId?: string; onCreated: (sync: SyncItem) => void }) {
  const { client } = useSession();
  const [chosenEnvironment, setChosenEnvironment] = useState('');
  const [type, setType] = useState<DestinationType>('github-actions');
  const [values, setValues] = useState<Record<string, string>>({});
  const [mode, setMode] = useState<SecretsManagerMode>('secret-per-key');
  const [keys, setKeys] = useState('**');
  const [prune, setPrune] = useState(false);
  const create = useAction();
  const envId = environmentId ?? chosenEnvironment;
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: NewSyncBody = { environmentId: envId, destination: destinationOf(type, values, mode), keys, prune };
    const made = await create.run(async () => unwrap(await client.api.POST('/api/v1/syncs', { body })));
    if (made) setValues({}), onCreated(made);
  };
  return (
    <form class="endpoint-form sync-form" aria-label="New sync" onSubmit={submit}>
      {environmentId ? (
        <p>
          Environment <EnvironmentLink id={environmentId} />
        </p>
      ) : (
        <EnvironmentPicker value={chosenEnvironment} onChoose={setChosenEnvironment} />
      )}
      <div class="fields">
        <label>
          Destination
          <select value={type} onChange={(e) => setType(valueOf(e) as DestinationType)}>
            {DESTINATION_TYPES.map((option) => (
              <option key={option.type} value={option.type}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <DestinationFields
        type={type}
        values={values}
        onValue={(name, value) => setValues((previous) => ({ ...previous, [name]: value }))}
        mode={mode}
        onMode={setMode}
      />
      <KeysAndPrune keys={keys} onKeys={setKeys} prune={prune} onPrune={setPrune} />
      <button type="submit" class="primary" disabled={create.busy || !envId}>
        Create sync
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}

/** The keys pattern and prune, as the new-sync form and a sync's settings both ask them. */
export function KeysAndPrune(props: { keys: string; onKeys: (keys: string) => void; prune: boolean; onPrune: (prune: boolean) => void }) {
  return (
    <div class="fields">
      <label>
        Keys pattern
        <input value={props.keys} onInput={(e) => props.onKeys(valueOf(e))} maxLength={256} spellcheck={false} placeholder="**" />
      </label>
      <label class="check">
        <input type="checkbox" checked={props.prune} onChange={(e) => props.onPrune((e.currentTarget as HTMLInputElement).checked)} />
        Prune (delete at the destination the keys that left the environment)
      </label>
    </div>
  );
}

/** An environment chosen by its project: the workspace's projects, then the chosen one's environments. */
function EnvironmentPicker({ value, onChoose }: { value: string; onChoose: (envId: string) => void }) {
  const { client } = useSession();
  const [projectId, setProjectId] = useState('');
  const projects = useLoaded(
    async () => unwrap(await client.api.GET('/api/v1/projects', { params: { query: { limit: PAGE_LIMIT } } })),
    [],
  );
  const environments = useLoaded(
    async () =>
      projectId
        ? unwrap(
            await client.api.GET('/api/v1/projects/{projectId}/environments', {
              params: { path: { projectId }, query: { limit: PAGE_LIMIT } },
            }),
          )
        : [],
    [projectId],
  );
  return (
    <div class="fields">
      <label>
        Project
        <select value={projectId} onChange={(e) => (setProjectId(valueOf(e)), onChoose(''))}>
          <option value="">choose…</option>
          {projects.value?.map((project) => (
            <option key={project.id} value={project.id}>
              {project.slug}
            </option>
          ))}
        </select>
      </label>
      <label>
        Environment
        <select value={value} onChange={(e) => onChoose(valueOf(e))} disabled={!projectId}>
          <option value="">choose…</option>
          {environments.value?.map((environment) => (
            <option key={environment.id} value={environment.id}>
              {environment.slug}
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={projects.error ?? environments.error} />
    </div>
  );
}
