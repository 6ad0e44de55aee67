import { type AuditWrite, putAuditEntries } from '../audit/index.ts';
import { patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { makeRevealLimiter, type RevealLimit, type RevealLimiter } from './reveal-limit-store.ts';
import { fromStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import type { EnvironmentValue } from './environment-value-items.ts';

/** Loading an environment: its values a page at a time, the page's reveals counted once and audited in batches. */
export function makeEnvironmentValueStore(db: Db, pager: Pager, limiter: RevealLimiter = makeRevealLimiter(db)) {
  return {
    /**
     * One Query: the environment's current values by key (A→Z), only `keys` when given. They are read from the path
     * items (`PATH#<project>/<environment>/<key>`), the copies of the heads that reveals by path read: every secret
     * has one, written in each version's transaction, so a version write keeps no item of its own for loads (a write
     * is 4 items, and a change request's merge of 20 writes fits one transaction: decisions.md v1.4). A secret
     * without a value, and the path marker of a deleted secret, have no `sealed`: the filter leaves them out.
     */
    async listEnvironmentValues(
      workspaceId: string,
      environment: { id: string; projectSlug: string; slug: string },
      page: PageRequest,
      onlyKeys?: readonly string[],
      keepKey?: (key: string) => boolean,
    ): Promise<Page<EnvironmentValue> & { cursorAfter: (index: number) => Promise<string> }> {
      const only = onlyKeys ? ` AND #key IN (${onlyKeys.map((_, i) => `:k${i}`).join(', ')})` : '';
      const filter = {
        FilterExpression: `attribute_exists(#sealed)${only}`,
        ExpressionAttributeNames: { '#sealed': 'sealed', ...(onlyKeys && { '#key': 'key' }) },
        ...(onlyKeys && { ExpressionAttributeValues: Object.fromEntries(onlyKeys.map((key, i) => [`:k${i}`, key])) }),
      };
      const input = {
        // `paths:`, not the `values:` of the value items these replaced: a cursor of theirs is refused, never misread.
        scope: `paths:${workspaceId}:${environment.id}:${onlyKeys ? [...onlyKeys].sort().join('\n') : '*'}`,
        ...patterns.secretPathsOfEnvironment(workspaceId, environment.projectSlug, environment.slug),
        newestFirst: false,
        filter,
        ...(keepKey && { keep: (item: Record<string, unknown>) => keepKey(item.key as string) }),
        ...page,
      };
      const result = await pager.queryPage<Record<string, unknown>>(input);
      const items = result.items.map((item) => ({
        id: item.id as string,
        key: item.key as string,
        version: item.currentVersion as number,
        sealed: fromStored(item.sealed as Record<string, unknown>),
        ...(item.encoding === 'base64' && { encoding: 'base64' as const }),
        ...(Array.isArray(item.references) && { references: item.references as string[] }),
      }));
      return { ...result, items, cursorAfter: (index) => pager.cursorAfter(input, result.items[index]!) };
    },

    /**
     * Counts one page as one reveal against the credential's per-minute limit and the workspace's ceiling (from
     * the container's leases), refusing it with RATE_LIMITED when either is reached.
     */
    async countRevealPage(workspaceId: string, limit: RevealLimit): Promise<void> {
      await limiter.countReveal(workspaceId, limit);
    },

    /**
     * Writes the page's audit entries durably: one conditional PutItem each, 25 in flight (`putAuditEntries`; a
     * batch could not carry the condition). When they cannot all be written it fails (SERVICE_UNAVAILABLE under
     * throttling) and the caller returns no value.
     */
    async writeAuditEntries(workspaceId: string, entries: readonly AuditWrite[]): Promise<void> {
      await putAuditEntries(db, workspaceId, entries);
    },
  };
}

/** An environment's values and the audit entries of a page of reveals, which a service asks for by name. */
export type EnvironmentValueStore = ReturnType<typeof makeEnvironmentValueStore>;
