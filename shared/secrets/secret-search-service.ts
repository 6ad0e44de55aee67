import type { Principal } from '../platform/principal.ts';
import { MAX_SEARCHED_PROJECTS } from './environment-search-store.ts';
import type { SecretStore } from './secret-store.ts';
import type { EnvironmentSearchStore } from './environment-search-store.ts';
import type { PageRequest } from '../platform/store/query.ts';
import { secretPath, type SecretRecord } from './secret-record.ts';
import { targetOf } from './secret-guard.ts';

export type SecretSearchStore = Pick<SecretStore, 'searchSecrets'> &
  Pick<EnvironmentSearchStore, 'searchEnvironments' | 'environmentsOfProjects' | 'indexEnvironmentSearch'>;

/** What a search may also be asked (the AWS API's ListSecrets and BatchGetSecretValue). */
export interface SearchOptions {
  /** ListSecrets' filters: only the secrets it accepts, read on past the others as a scoped caller's rules are. */
  matching?: ((record: SecretRecord) => boolean) | undefined;
  /** By creation, newest first (the default), or oldest first. */
  newestFirst?: boolean | undefined;
}

/**
 * Search by key, by creation (secret ids sort by it), of what the caller may read. An unscoped caller reads the
 * workspace's search index (GSI1) a page at a time, in either order. A caller whose rules name a few projects (and
 * maybe environments) by their slugs reads only those environments (GSI4, merged), never the whole workspace; any
 * other scoped caller, or a search with `matching`, reads the workspace's index, reading on past what it may not see.
 */
export function makeSecretSearch(store: SecretSearchStore) {
  return async function search(principal: Principal, q: string | undefined, page: PageRequest, options: SearchOptions = {}) {
    const ws = principal.workspaceId;
    const { policy } = principal.authority;
    const { matching, newestFirst = true } = options;
    const scope = policy.seesEverything || matching ? undefined : policy.literalScope;
    let result;
    if (scope && scope.size <= MAX_SEARCHED_PROJECTS) {
      const environments = (await store.environmentsOfProjects(ws, [...scope.keys()])).filter((e) => {
        const named = scope.get(e.projectSlug);
        return (named === null || named?.has(e.slug)) && policy.environmentVisible(e.projectSlug, e.slug);
      });
      await Promise.all(environments.filter((e) => !e.searchIndexed).map((e) => store.indexEnvironmentSearch(ws, e)));
      const readable = (e: { projectSlug: string; slug: string }, key: string) =>
        policy.allows('read', { project: e.projectSlug, environment: e.slug, key });
      result = await store.searchEnvironments(ws, environments, q, page, readable, newestFirst);
    } else {
      const readable = policy.seesEverything ? undefined : (record: SecretRecord) => policy.allows('read', targetOf(record));
      const keep = matching && readable ? (record: SecretRecord) => readable(record) && matching(record) : (matching ?? readable);
      result = await store.searchSecrets(ws, q, page, keep, newestFirst);
    }
    return { ...result, items: result.items.map((record) => ({ ...record, path: secretPath(record) })) };
  };
}
