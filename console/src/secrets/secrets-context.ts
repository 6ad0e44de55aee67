import type { components, SecretsClient } from '@secrets-service/sdk/client';
import { pageQuery } from '../ui/paged.tsx';

/**
 * Where a project, an environment or a secret sits, for the headings and links of the secrets views. The API has no
 * "get by id" for these (only lists, slugs and search), so what a view has listed is kept here in memory, and an
 * address opened directly (a bookmark) walks the lists once. Names and keys only: never a value.
 */
export type ProjectItem = components['schemas']['Project'];
export type EnvironmentItem = components['schemas']['Environment'];
export type SecretItem = components['schemas']['SecretListItem'];
export type SearchItem = components['schemas']['SecretSearchItem'];

/** A secret's place: its key, environment and project (a search result has all of it). */
export type SecretPlace = Pick<SearchItem, 'id' | 'key' | 'environmentId' | 'envSlug' | 'projectId' | 'projectSlug'>;

const projects = new Map<string, ProjectItem>();
const environments = new Map<string, EnvironmentItem>();
const secrets = new Map<string, SecretPlace>();

type Page<T> = { data?: { data: T[]; meta: { page?: { nextCursor: string | null } } }; error?: unknown; response: Response };

/** Every item of a list route, following `nextCursor`, until `stop` says enough. */
export async function listAll<T>(
  client: SecretsClient,
  list: (cursor: string | undefined) => Promise<Page<T>>,
  stop?: (item: T) => boolean,
): Promise<T[]> {
  const items: T[] = [];
  for await (const item of client.paginate(list)) {
    items.push(item);
    if (stop?.(item)) break;
  }
  return items;
}

/** Keeps what a view listed, so the next view can name it without asking. */
export function remember(found: { projects?: ProjectItem[]; environments?: EnvironmentItem[]; secrets?: SecretPlace[] }): void {
  for (const project of found.projects ?? []) projects.set(project.id, project);
  for (const environment of found.environments ?? []) environments.set(environment.id, environment);
  for (const secret of found.secrets ?? []) secrets.set(secret.id, secret);
}

/** Forgets a secret's place (deleted); a restore or a list puts it back. */
export function forgetSecret(secretId: string): void {
  secrets.delete(secretId);
}

/** A project by id: from memory, or by walking the projects list; undefined when the caller cannot see it. */
export async function findProject(client: SecretsClient, projectId: string): Promise<ProjectItem | undefined> {
  if (!projects.has(projectId)) {
    const listed = await listAll(
      client,
      (cursor) => client.api.GET('/api/v1/projects', { params: { query: pageQuery(cursor) } }),
      (p) => p.id === projectId,
    );
    remember({ projects: listed });
  }
  return projects.get(projectId);
}

/** A project's environments, all pages, remembered. */
export async function environmentsOf(client: SecretsClient, projectId: string): Promise<EnvironmentItem[]> {
  const listed = await listAll(client, (cursor) =>
    client.api.GET('/api/v1/projects/{projectId}/environments', { params: { path: { projectId }, query: pageQuery(cursor) } }),
  );
  remember({ environments: listed });
  return listed;
}

/**
 * An environment and its project by the environment's id: from memory, or by walking the projects and their
 * environments, a few projects at a time, until it turns up. Undefined when the caller cannot see it.
 */
export async function findEnvironment(
  client: SecretsClient,
  envId: string,
): Promise<{ environment: EnvironmentItem; project: ProjectItem | undefined } | undefined> {
  let environment = environments.get(envId);
  if (!environment) {
    const all = await listAll(client, (cursor) => client.api.GET('/api/v1/projects', { params: { query: pageQuery(cursor) } }));
    remember({ projects: all });
    for (let start = 0; start < all.length && !environments.has(envId); start += 5) {
      await Promise.all(all.slice(start, start + 5).map((project) => environmentsOf(client, project.id)));
    }
    environment = environments.get(envId);
  }
  if (!environment) return undefined;
  return { environment, project: await findProject(client, environment.projectId) };
}

/**
 * A secret's key and place by its id: from memory, or through search (the one route that answers a secret's place;
 * it matches keys, not ids), walking the workspace's secrets page by page until it turns up.
 */
export async function findSecret(client: SecretsClient, secretId: string): Promise<SecretPlace | undefined> {
  if (!secrets.has(secretId)) {
    const listed = await listAll(
      client,
      (cursor) => client.api.GET('/api/v1/search/secrets', { params: { query: pageQuery(cursor) } }),
      (s) => s.id === secretId,
    );
    const found = listed.find((s) => s.id === secretId);
    if (found) remember({ secrets: [found] });
  }
  return secrets.get(secretId);
}
