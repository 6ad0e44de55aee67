import { roleAuthority } from '../../access/index.ts';
import type { Principal } from '../../platform/principal.ts';
import type { PageRequest } from '../../platform/store/query.ts';
import type { PushedValue } from '../destinations/destination.ts';
import type { RunnableSync } from './sync-run-store.ts';

/**
 * What a sync reveals (decisions.md v1.4, "Syncs"): its environment's current values through the secrets service's
 * environment load, so each value is counted against the reveal limits, resolved (references pushed resolved) and
 * audited `secret.reveal` (`bulk: true`, and `syncId` on the entry of each secret and of each target its references
 * reveal) before it is answered, exactly as any reveal is.
 */

/** The secrets service's environment load, as the worker calls it. */
export type EnvironmentLoad = (
  principal: Principal,
  environmentId: string,
  input: { keys?: string[] | undefined; keep?: ((key: string) => boolean) | undefined },
  page: PageRequest,
) => Promise<{ items: { key: string; value: string }[]; nextCursor: string | null }>;

/** A page of an environment load: the route's largest, and the most keys one DynamoDB `IN` filter takes. */
const PAGE = 100;

/**
 * The sync as the caller of its reveals: the service acting for the admin who made it (no credential kind), named by
 * the sync's id (its own reveal rate limit), seeing every secret of the workspace so the references its values hold
 * resolve as the admin's would, and every entry carrying `syncId`.
 */
export function syncPrincipal(workspaceId: string, sync: RunnableSync): Principal {
  const admin = roleAuthority('admin');
  return {
    workspaceId,
    accountId: sync.accountId,
    kind: undefined,
    actorSub: sync.id,
    credentialId: sync.id,
    authority: { policy: admin.policy, admin: false },
    auditMetadata: { syncId: sync.id },
  };
}

/** The current values of `keys` (every key `matches` accepts when null) of the sync's environment, audited before they are answered. */
export function makeSyncReveal(load: EnvironmentLoad) {
  return async (
    workspaceId: string,
    sync: RunnableSync,
    keys: readonly string[] | null,
    matches: (key: string) => boolean,
  ): Promise<PushedValue[]> => {
    const principal = syncPrincipal(workspaceId, sync);
    const chunks =
      keys === null ? [undefined] : Array.from({ length: Math.ceil(keys.length / PAGE) }, (_, i) => keys.slice(i * PAGE, (i + 1) * PAGE));
    const values: PushedValue[] = [];
    for (const chunk of chunks) {
      let cursor: string | undefined;
      do {
        // Only keys the sync's pattern matches are revealed (and audited): never a value it would not push.
        const page = await load(principal, sync.environmentId, { keys: chunk, keep: matches }, { limit: PAGE, cursor });
        values.push(...page.items.map((item) => ({ key: item.key, value: item.value })));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return values;
  };
}
