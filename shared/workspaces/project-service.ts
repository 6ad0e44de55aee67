import type { Principal } from '../platform/principal.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { assertMayCreateEnvironments, assertMayCreateProjects, requireAccess } from '../access/index.ts';
import { newId } from '../platform/ids.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import { SlugTakenError, type EnvironmentItem, type ProjectItem, type ProjectStore } from './project-store.ts';
import { auditEntry } from '../audit/index.ts';
import { firstFreeSlug, slugify } from './slug.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';

/** Slug races are settled by the transaction's condition; this many lost races in a row is a real conflict. */
const SLUG_ATTEMPTS = 8;

/** Retries `create` while another request takes the slug it picked between the read and the write. */
async function withFreeSlug<T>(base: string, taken: () => Promise<string[]>, create: (slug: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    try {
      return await create(firstFreeSlug(base, await taken()));
    } catch (error) {
      if (!(error instanceof SlugTakenError)) throw error;
    }
  }
  throw new ConflictError('name: too many concurrent creations with this name; retry');
}

export type ProjectServiceStore = Pick<
  ProjectStore,
  | 'listProjects'
  | 'getProject'
  | 'projectByIdKeys'
  | 'getProjectBySlug'
  | 'projectSlugsStartingWith'
  | 'createProject'
  | 'listEnvironments'
  | 'getEnvironment'
  | 'environmentByIdKeys'
  | 'getEnvironmentBySlug'
  | 'environmentSlugsStartingWith'
  | 'createEnvironment'
>;

/** Projects and their environments: creation with unique slugs and an audit entry, lookups, lists. */
export function makeProjectService({ store, clock }: { store: ProjectServiceStore; clock: Clock }) {
  const projectOrNotFound = (project: ProjectItem | undefined, what: string): ProjectItem => {
    if (!project) throw new NotFoundError(`project ${what} was not found`);
    return project;
  };

  /** A project the caller may see; NOT_FOUND for one it may not (it does not exist for the caller). */
  const visibleProject = (principal: Principal, project: ProjectItem | undefined, what: string): Promise<ProjectItem> =>
    requireAccess(principal, project, (found) => ({ project: found.slug }), { notFound: `project ${what} was not found` });

  return {
    /** What each lookup by id reads ahead, in the credential's own BatchGetItem. */
    prefetch: {
      project: (workspaceId: string, projectId: string) => store.projectByIdKeys(workspaceId, projectId),
      environment: (workspaceId: string, environmentId: string) => store.environmentByIdKeys(workspaceId, environmentId),
    },

    /** The projects the caller may see: one Query a page for an unscoped caller, reading on past hidden ones otherwise. */
    listProjects(principal: Principal, page: PageRequest): Promise<Page<ProjectItem>> {
      const { policy } = principal.authority;
      return store.listProjects(
        principal.workspaceId,
        page,
        policy.seesEverything ? undefined : (project) => policy.projectVisible(project.slug),
      );
    },

    async createProject(principal: Principal, input: { name: string }): Promise<ProjectItem> {
      assertMayCreateProjects(principal);
      const ws = principal.workspaceId;
      const base = slugify(input.name, 'project');
      return withFreeSlug(
        base,
        () => store.projectSlugsStartingWith(ws, base),
        async (slug) => {
          const now = clock.now();
          const project: ProjectItem = {
            id: newId('project', now),
            name: input.name,
            slug,
            createdAt: iso(now),
            createdBy: principal.actorSub,
          };
          announceAnswer(project);
          await store.createProject(ws, project, auditEntry(principal, 'project.create', project.id, { name: project.name, slug }, now));
          return project;
        },
      );
    },

    /** One project as the list shows it; NOT_FOUND for one the caller may not see, as for an unknown id. */
    async getProject(principal: Principal, projectId: string, prefetched?: Prefetched): Promise<ProjectItem> {
      return visibleProject(principal, await store.getProject(principal.workspaceId, projectId, prefetched), projectId);
    },

    async getProjectBySlug(principal: Principal, slug: string): Promise<ProjectItem> {
      return visibleProject(principal, await store.getProjectBySlug(principal.workspaceId, slug), slug);
    },

    /**
     * A project's environments the caller may see. For an unscoped caller a non-empty list proves the project is ours,
     * and only an empty one needs the extra read to tell 404 from []; a scoped caller reads the project first (its
     * slug decides what is visible).
     */
    async listEnvironments(principal: Principal, projectId: string, page: PageRequest): Promise<Page<EnvironmentItem>> {
      const ws = principal.workspaceId;
      const { policy } = principal.authority;
      if (policy.seesEverything) {
        const result = await store.listEnvironments(ws, projectId, page);
        if (result.items.length === 0) projectOrNotFound(await store.getProject(ws, projectId), projectId);
        return result;
      }
      const project = await visibleProject(principal, await store.getProject(ws, projectId), projectId);
      return store.listEnvironments(ws, projectId, page, (environment) => policy.environmentVisible(project.slug, environment.slug));
    },

    async createEnvironment(principal: Principal, projectId: string, input: { name: string }): Promise<EnvironmentItem> {
      assertMayCreateEnvironments(principal);
      const ws = principal.workspaceId;
      const project = projectOrNotFound(await store.getProject(ws, projectId), projectId);
      const base = slugify(input.name, 'environment');
      return withFreeSlug(
        base,
        () => store.environmentSlugsStartingWith(ws, projectId, base),
        async (slug) => {
          const now = clock.now();
          const environment: EnvironmentItem = { id: newId('environment', now), projectId, name: input.name, slug, createdAt: iso(now) };
          const audit = auditEntry(principal, 'environment.create', environment.id, { name: environment.name, slug, projectId }, now);
          announceAnswer(environment);
          await store.createEnvironment(ws, environment, project.slug, audit);
          return environment;
        },
      );
    },

    async getEnvironmentBySlug(principal: Principal, projectSlug: string, envSlug: string): Promise<EnvironmentItem> {
      const project = await visibleProject(principal, await store.getProjectBySlug(principal.workspaceId, projectSlug), projectSlug);
      const environment = await store.getEnvironmentBySlug(principal.workspaceId, project.id, envSlug);
      return requireAccess(principal, environment, (found) => ({ project: project.slug, environment: found.slug }), {
        notFound: `environment ${projectSlug}/${envSlug} was not found`,
      });
    },

    /**
     * One environment as its project's list shows it, plus its project's slug, from the one item keyed by its id;
     * NOT_FOUND for one the caller may not see (its project hidden included: what hides a project hides its
     * environments, access-policy.ts), as for an unknown id.
     */
    async getEnvironment(principal: Principal, environmentId: string, prefetched?: Prefetched) {
      const found = await store.getEnvironment(principal.workspaceId, environmentId, prefetched);
      const environment = await requireAccess(principal, found, (e) => ({ project: e.projectSlug, environment: e.slug }), {
        notFound: `environment ${environmentId} was not found`,
      });
      return environment;
    },
  };
}

export type ProjectService = ReturnType<typeof makeProjectService>;
