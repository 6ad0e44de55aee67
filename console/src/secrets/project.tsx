import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, Time } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import type { EnvironmentItem } from './secrets-context.ts';
import { NameForm } from './secrets-ui.tsx';
import { useTitle } from '../ui/title.ts';

/**
 * `/console/projects/{projectId}`: the project (`GET /api/v1/projects/{projectId}`), its environments, a new one
 * (admins), and a comparison of two.
 */
export function Project() {
  const { params } = useRoute();
  const projectId = params.projectId ?? '';
  const { client, credential } = useSession();
  const project = useLoaded(
    async () => unwrap(await client.api.GET('/api/v1/projects/{projectId}', { params: { path: { projectId } } })),
    [projectId],
  );
  useTitle('Environments', project.value?.slug);
  const paged = usePaged(
    (cursor) => client.api.GET('/api/v1/projects/{projectId}/environments', { params: { path: { projectId }, query: pageQuery(cursor) } }),
    [projectId],
  );
  const create = async (name: string) => {
    const made = unwrap(
      await client.api.POST('/api/v1/projects/{projectId}/environments', { params: { path: { projectId } }, body: { name } }),
    );
    paged.reload();
    return made;
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
      {credential.offers.admin && <NameForm label="Environment name" button="New environment" onCreate={create} />}
      <PagedTable
        paged={paged}
        what="environments"
        empty="No environments yet."
        head={['Name', 'Slug', 'Created']}
        row={(environment) => (
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
        )}
      />
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
