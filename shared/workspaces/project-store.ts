import { NotFoundError } from '../platform/errors.ts';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import type { ItemKey, Prefetched } from '../platform/prefetch.ts';
import { mustExist, transact } from '../platform/store/conditional.ts';
import type { Pager } from '../platform/store/pager.ts';
import { querySortKeys, type Page, type PageRequest } from '../platform/store/query.ts';
import { getItem, readItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { pick } from '../platform/store/items.ts';
import { reviewPolicyOf, type ReviewPolicy } from './review-policy-store.ts';

export interface ProjectItem {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  createdBy: string;
}

export interface EnvironmentItem {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  createdAt: string;
}

const PROJECT_FIELDS: readonly (keyof ProjectItem)[] = ['id', 'name', 'slug', 'createdAt', 'createdBy'];
const ENVIRONMENT_FIELDS: readonly (keyof EnvironmentItem)[] = ['id', 'projectId', 'name', 'slug', 'createdAt'];

/** Raised when another request took the slug between reading the taken ones and writing: pick again. */
export class SlugTakenError extends Error {}

/**
 * Projects and environments. Both are immutable once created, so the by-id, by-slug and per-project list items
 * carry full copies and every read is one request.
 */
export function makeProjectStore(db: Db, pager: Pager) {
  const toProject = (item: Record<string, unknown> | undefined) => pick<ProjectItem>(item, PROJECT_FIELDS);
  const toEnvironment = (item: Record<string, unknown> | undefined) => pick<EnvironmentItem>(item, ENVIRONMENT_FIELDS);
  const put = (key: { PK: string; SK: string }, type: string, workspaceId: string, value: object) => ({
    Put: {
      TableName: db.tableName,
      Item: { ...key, type, workspaceId, ...value },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });

  return {
    async listProjects(workspaceId: string, page: PageRequest, keep?: (project: ProjectItem) => boolean): Promise<Page<ProjectItem>> {
      const result = await pager.queryPage({
        scope: `projects:${workspaceId}`,
        ...patterns.projectsByWorkspace(workspaceId),
        ...(keep && { keep: (item: Record<string, unknown>) => keep(toProject(item)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toProject(item)!) };
    },

    /** What a read of a project by id needs, to be read ahead with the credential: the project. */
    projectByIdKeys(workspaceId: string, projectId: string): ItemKey[] {
      return [keys.project(workspaceId, projectId)];
    },

    async getProject(workspaceId: string, projectId: string, prefetched?: Prefetched): Promise<ProjectItem | undefined> {
      return toProject(await readItem(db, keys.project(workspaceId, projectId), prefetched));
    },

    async getProjectBySlug(workspaceId: string, slug: string): Promise<ProjectItem | undefined> {
      return toProject(await getItem(db, keys.projectSlug(workspaceId, slug)));
    },

    /** Slugs already used in the workspace that start with `base`. */
    async projectSlugsStartingWith(workspaceId: string, base: string): Promise<string[]> {
      const claims = patterns.projectSlugsStartingWith(workspaceId, '').skPrefix;
      return (await querySortKeys(db, patterns.projectSlugsStartingWith(workspaceId, base))).map((sk) => sk.slice(claims.length));
    },

    /** The project, its slug claim and its audit entry, all or nothing. */
    async createProject(workspaceId: string, project: ProjectItem, audit: AuditEntry): Promise<void> {
      const failed = await transact(
        db,
        [
          put(keys.project(workspaceId, project.id), ENTITY.project, workspaceId, project),
          put(keys.projectSlug(workspaceId, project.slug), ENTITY.projectSlug, workspaceId, project),
          auditPut(db, workspaceId, audit),
        ],
        [1],
      );
      if (failed === 1) throw new SlugTakenError();
    },

    async listEnvironments(
      workspaceId: string,
      projectId: string,
      page: PageRequest,
      keep?: (environment: EnvironmentItem) => boolean,
    ): Promise<Page<EnvironmentItem>> {
      const result = await pager.queryPage({
        scope: `environments:${workspaceId}:${projectId}`,
        ...patterns.environmentsByProject(workspaceId, projectId),
        ...(keep && { keep: (item: Record<string, unknown>) => keep(toEnvironment(item)!) }),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toEnvironment(item)!) };
    },

    /**
     * What a read of an environment by id needs, to be read ahead with the credential: the environment (its lookup
     * by id, and the secrets service's load of an environment).
     */
    environmentByIdKeys(workspaceId: string, environmentId: string): ItemKey[] {
      return [keys.environment(workspaceId, environmentId)];
    },

    /**
     * An environment by id, with its project's slug (where its secrets' paths start, which its loads read by).
     */
    async getEnvironment(
      workspaceId: string,
      environmentId: string,
      prefetched?: Prefetched,
    ): Promise<(EnvironmentItem & { projectSlug: string; reviewPolicy?: ReviewPolicy }) | undefined> {
      const item = await readItem(db, keys.environment(workspaceId, environmentId), prefetched);
      const reviewPolicy = reviewPolicyOf(item);
      return (
        item && {
          ...toEnvironment(item)!,
          projectSlug: item.projectSlug as string,
          ...(reviewPolicy && { reviewPolicy }),
        }
      );
    },

    /** An environment by slug, with its review policy (the AWS API's CreateSecret reads this item only). */
    async getEnvironmentBySlug(
      workspaceId: string,
      projectId: string,
      slug: string,
    ): Promise<(EnvironmentItem & { reviewPolicy?: ReviewPolicy }) | undefined> {
      const item = await getItem(db, keys.environmentSlug(workspaceId, projectId, slug));
      const reviewPolicy = reviewPolicyOf(item);
      return item && { ...toEnvironment(item)!, ...(reviewPolicy && { reviewPolicy }) };
    },

    async environmentSlugsStartingWith(workspaceId: string, projectId: string, base: string): Promise<string[]> {
      const claims = patterns.environmentSlugsStartingWith(workspaceId, projectId, '').skPrefix;
      return (await querySortKeys(db, patterns.environmentSlugsStartingWith(workspaceId, projectId, base))).map((sk) =>
        sk.slice(claims.length),
      );
    },

    /** The environment (by id, in its project's list, by slug) and its audit entry; the project must exist. */
    async createEnvironment(workspaceId: string, environment: EnvironmentItem, projectSlug: string, audit: AuditEntry): Promise<void> {
      const { projectId } = environment;
      // A new environment's secrets all get their search index keys as they are written (see indexEnvironmentSearch).
      const item = { ...environment, projectSlug, searchIndexed: true };
      const failed = await transact(
        db,
        [
          mustExist(db, keys.project(workspaceId, projectId)),
          put(keys.environmentSlug(workspaceId, projectId, environment.slug), ENTITY.environmentSlug, workspaceId, item),
          put(keys.environment(workspaceId, environment.id), ENTITY.environment, workspaceId, item),
          put(keys.projectEnvironment(workspaceId, projectId, environment.id), ENTITY.projectEnvironment, workspaceId, item),
          auditPut(db, workspaceId, audit),
        ],
        [0, 1],
      );
      if (failed === 0) throw new NotFoundError(`project ${projectId} was not found`);
      if (failed === 1) throw new SlugTakenError();
    },
  };
}

export type ProjectStore = ReturnType<typeof makeProjectStore>;
