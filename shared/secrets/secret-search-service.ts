import type { Principal } from '../platform/principal.ts';
import { MAX_SEARCHED_PROJECTS } from './environment-search-store.ts';
import type { Store } from '../store.ts';
import type { PageRequest } from '../platform/store/query.ts';
import { secretPath, type SecretRecord } from './secret-record.ts';
import { targetOf } from './secret-guard.ts';

export type SecretSearchStore = Pick<Store, 'searchSecrets' | 'searchEnvironments' | 'environmentsOfProjects' | 'indexEnvironmentSearch'>;

/**
 * Search by key, newest first, of what the caller may read. An unscoped caller reads the workspace's search index
 * (GSI1) a page at a time. A caller whose rules name a few projects (and maybe environments) by their slugs reads
 * only those environments (GSI4), never the whole workspace; any other scoped caller reads the workspace's index,
 * reading on past what it may not see.
 */
export function makeSecretSearch(store: SecretSearchStore) {
  /**
   * `matching` (the AWS API's ListSecrets filters) keeps only the secrets it accepts, read on past the others as a
   * scoped caller's rules are; it reads the workspace's index.
   */
  return async function search(
    principal: Principal,
    q: string | undefined,
    page: PageRequest,
    matching?: (record: SecretRecord) => boolean,
  ) {
    const ws = principal.workspaceId;
    const { policy } = principal.authority;
    const scope = policy.seesEverything || matching ? undefined : policy.literalScope;
    let result;
    if (scope && scope.size <= MAX_SEARCHED_PROJECTS) {
      const environments = (await store.environmentsOfProjects(ws, [...scope.keys()])).filter((e) => {
        const named = scope.get(e.projectSlug);
        return (named === null || named?.has(e.slug)) && policy.environmentVisible(e.projectSlug, e.slug);
      });
      await Promise.all(environments.filter((e) => !e.searchIndexed).map((e) => store.indexEnvironmentSearch(ws, e)));
      result = await store.searchEnvironments(ws, environments, q, page, (e, key) =>
        policy.allows('read', { project: e.projectSlug, environment: e.slug, key }),
      );
    } else {
      const readable = policy.seesEverything ? undefined : (record: SecretRecord) => policy.allows('read', targetOf(record));
      const keep = matching && readable ? (record: SecretRecord) => readable(record) && matching(record) : (matching ?? readable);
      result = await store.searchSecrets(ws, q, page, keep);
    }
    return { ...result, items: result.items.map((record) => ({ ...record, path: secretPath(record) })) };
  };
}
