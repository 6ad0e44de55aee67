import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { Empty, ErrorBox, LoadMore, Loading, Time, useAction, usePaged } from '../ui/components.tsx';
import { findProject, pageQuery, remember, type EnvironmentItem } from './secrets-context.ts';
import { useLoaded } from './secrets-ui.tsx';

/** `/console/projects/{projectId}`: the project's environments, a new one (admins), and a comparison of two. */
export function Project() {
  const { params } = useRoute();
  const projectId = params.projectId ?? '';
  const { client, credential } = useSession();
  const project = useLoaded(() => findProject(client, projectId), [projectId]);
  const paged = usePaged((cursor) => client.api.GET('/api/v1/projects/{projectId}/environments', { params: { path: { projectId }, query: pageQuery(cursor) } }), [projectId]);
  useEffect(() => remember({ environments: paged.items }), [paged.items]);
  const [name, setName] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const made = await create.run(async () => unwrap(await client.api.POST('/api/v1/projects/{projectId}/environments', { params: { path: { projectId } }, body: { name } })));
    if (made) (setName(''), paged.reload());
  };
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href="/console/projects">Projects</a> /
      </nav>
      <h1>{project.value?.name ?? 'Project'}</h1>
      <p class="muted">{project.value ? <code>{project.value.slug}</code> : <code>{projectId}</code>}</p>
      <ErrorBox error={project.error} />
      <h2>Environments</h2>
      {credential.offers.admin && (
        <form class="inline" onSubmit={submit}>
          <label>
            Environment name
            <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={120} />
          </label>
          <button type="submit" disabled={create.busy}>
            New environment
          </button>
          <ErrorBox error={create.error} />
        </form>
      )}
      {paged.loading && paged.items.length === 0 && <Loading what="environments" />}
      {!paged.loading && !paged.error && paged.items.length === 0 && <Empty>No environments yet.</Empty>}
      {paged.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Slug</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {paged.items.map((environment) => (
              <tr key={environment.id}>
                <td>
                  <a href={`/console/environments/${environment.id}`}>{environment.name}</a>
                </td>
                <td>
                  <code>{environment.slug}</code>
                </td>
                <td>
                  <Time at={environment.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore paged={paged} />
      {paged.items.length >= 2 && <CompareForm projectId={projectId} environments={paged.items} />}
    </section>
  );
}

/** Two environments of the project to compare by key and version (never by value). */
function CompareForm({ projectId, environments }: { projectId: string; environments: EnvironmentItem[] }) {
  const { route } = useLocation();
  const [a, setA] = useState(environments[0]!.id);
  const [b, setB] = useState(environments[1]!.id);
  const pick = (label: string, value: string, set: (id: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        {environments.map((environment) => (
          <option key={environment.id} value={environment.id}>
            {environment.name}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      class="inline"
      aria-labelledby="compare-heading"
      onSubmit={(event) => {
        event.preventDefault();
        route(`/console/projects/${projectId}/compare?${new URLSearchParams({ a, b }).toString()}`);
      }}
    >
      <h2 id="compare-heading" class="form-title">
        Compare environments
      </h2>
      {pick('First environment', a, setA)}
      {pick('Second environment', b, setB)}
      <button type="submit" disabled={a === b}>
        Compare
      </button>
    </form>
  );
}
