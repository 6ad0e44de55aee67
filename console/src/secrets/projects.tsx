import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { Empty, ErrorBox, LoadMore, Loading, Time, useAction, usePaged } from '../ui/components.tsx';

/** `/console/projects`: the workspace's projects, and a new one (admins). */
export function Projects() {
  const { client, credential } = useSession();
  const paged = usePaged((cursor) => client.api.GET('/api/v1/projects', { params: { query: { limit: '50', ...(cursor ? { cursor } : {}) } } }), []);
  const [name, setName] = useState('');
  const create = useAction();
  return (
    <section>
      <h1>Projects</h1>
      {credential.offers.admin && (
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            const made = await create.run(async () => unwrap(await client.api.POST('/api/v1/projects', { body: { name } })));
            if (made) (setName(''), paged.reload());
          }}
        >
          <label>
            Project name
            <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={120} />
          </label>
          <button type="submit" disabled={create.busy}>
            New project
          </button>
          <ErrorBox error={create.error} />
        </form>
      )}
      {paged.loading && paged.items.length === 0 && <Loading what="projects" />}
      {!paged.loading && !paged.error && paged.items.length === 0 && <Empty>No projects yet.</Empty>}
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
            {paged.items.map((project) => (
              <tr key={project.id}>
                <td>
                  <a href={`/console/projects/${project.id}`}>{project.name}</a>
                </td>
                <td>
                  <code>{project.slug}</code>
                </td>
                <td>
                  <Time at={project.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore paged={paged} />
    </section>
  );
}
