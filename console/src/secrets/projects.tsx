import { unwrap, useSession } from '../api.ts';
import { Time } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { NameForm } from './secrets-ui.tsx';
import { useTitle } from '../ui/title.ts';

/** `/console/projects`: the workspace's projects, and a new one (admins). */
export function Projects() {
  useTitle('Projects');
  const { client, credential } = useSession();
  const paged = usePaged((cursor) => client.api.GET('/api/v1/projects', { params: { query: pageQuery(cursor, '50') } }), []);
  const create = async (name: string) => {
    const made = unwrap(await client.api.POST('/api/v1/projects', { body: { name } }));
    paged.reload();
    return made;
  };
  return (
    <section>
      <h1>Projects</h1>
      {credential.offers.admin && <NameForm label="Project name" button="New project" onCreate={create} />}
      <PagedTable
        paged={paged}
        what="projects"
        empty="No projects yet."
        head={['Name', 'Slug', 'Created']}
        row={(project) => (
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
        )}
      />
    </section>
  );
}
