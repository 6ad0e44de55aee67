import { itemKeyString } from '../platform/prefetch.ts';
import { keys, patterns } from '../platform/store/keys.ts';
import { queryAll } from '../platform/store/query.ts';
import { batchRead } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { pathOf } from './reference-basics.ts';

/**
 * The readers of the reverse index of secret references (decisions.md v1.4, "Secret references"; docs/references-wiring.md, 3):
 * one edge per (target path, referencing secret), written with the version that makes the references current.
 * The head's `references` stay authoritative: a reader confirms each edge against the dependent's head, so an edge
 * left stale (a removal that did not fit a transaction, a deleted dependent) is never answered.
 */

/** How many dependents `GET /secrets/{id}` answers at most (`referencedBy`): the route description says so. */
export const REFERENCED_BY_CAP = 100;

/** What a reader keeps of a dependent's head: never its sealed value. */
const HEAD_FIELDS = ['id', 'key', 'projectId', 'projectSlug', 'environmentId', 'envSlug', 'currentVersion', 'references'] as const;

/** A dependent as the readers answer it: what its head says of it (never its sealed value), and its path. */
export interface Dependent {
  id: string;
  key: string;
  projectId: string;
  environmentId: string;
  currentVersion: number;
  path: string;
}

/** A dependent from its head's item, when the head still lists `path` among its current references. */
function dependentOf(item: Record<string, unknown> | undefined, path: string): Dependent | undefined {
  if (!item || !(item.references as string[] | undefined)?.includes(path)) return undefined;
  const { id, key, projectId, environmentId, currentVersion, projectSlug, envSlug } = item as unknown as Omit<Dependent, 'path'> & {
    projectSlug: string;
    envSlug: string;
  };
  return { id, key, projectId, environmentId, currentVersion, path: pathOf({ projectSlug, envSlug, key }) };
}

/** Reads of the reverse index: a Query per target path, then one BatchGetItem of the dependents' heads. */
export function makeReferenceIndexStore(db: Db) {
  /** The secret ids with an edge to `path`, at most `limit`. */
  const edgesTo = async (workspaceId: string, path: string, limit?: number) => {
    const items = await queryAll<{ secretId: string }>(db, patterns.referencesTo(workspaceId, path), {
      projection: ['secretId'],
      ...(limit !== undefined && { maxItems: limit }),
    });
    return items.map((item) => item.secretId);
  };

  /** The dependents (by head) of each path whose head still lists it; ids in `skip` are not read. */
  async function dependentsOf(workspaceId: string, paths: readonly string[], skip: ReadonlySet<string> = new Set(), limit?: number) {
    const edges = await Promise.all(paths.map(async (path) => ({ path, ids: await edgesTo(workspaceId, path, limit) })));
    const ids = [...new Set(edges.flatMap((edge) => edge.ids))].filter((id) => !skip.has(id));
    if (ids.length === 0) return [];
    const heads = await batchRead(
      db,
      ids.map((id) => keys.secretHead(workspaceId, id)),
      { projection: HEAD_FIELDS },
    );
    const found: { path: string; dependent: Dependent }[] = [];
    for (const { path, ids: of } of edges) {
      for (const id of of) {
        const dependent = dependentOf(heads.get(itemKeyString(keys.secretHead(workspaceId, id))), path);
        if (dependent) found.push({ path, dependent });
      }
    }
    return found;
  }

  return {
    dependentsOf,

    /** The ids of the secrets whose current value references `path` (confirmed by their heads), at most the cap. */
    async referencedBy(workspaceId: string, path: string): Promise<string[]> {
      const found = await dependentsOf(workspaceId, [path], new Set(), REFERENCED_BY_CAP);
      return found.map((entry) => entry.dependent.id);
    },

    /** A secret's path from its project's and environment's slugs (a deleted secret has no head to read it from). */
    async pathOf(workspaceId: string, secret: { projectId: string; environmentId: string; key: string }): Promise<string | undefined> {
      const project = keys.project(workspaceId, secret.projectId);
      const environment = keys.environment(workspaceId, secret.environmentId);
      const items = await batchRead(db, [project, environment], { projection: ['slug'], consistent: false });
      const projectSlug = items.get(itemKeyString(project))?.slug as string | undefined;
      const envSlug = items.get(itemKeyString(environment))?.slug as string | undefined;
      return projectSlug && envSlug ? pathOf({ projectSlug, envSlug, key: secret.key }) : undefined;
    },
  };
}

/** What the reverse index's readers answer. */
export type ReferenceIndexStore = ReturnType<typeof makeReferenceIndexStore>;
