import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditWrite, putAuditEntries } from '../audit/index.ts';
import { transact } from '../platform/store/conditional.ts';
import { keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { batchRead } from '../platform/store/reads.ts';
import { makeRevealLimiter, type RevealLimit, type RevealLimiter } from './reveal-limit-store.ts';
import { fromStored } from '../platform/store/sealed.ts';
import { send, type Db } from '../platform/store/send.ts';
import { environmentValuePut, type EnvironmentValue } from './environment-value-items.ts';

/** Loading an environment: its values a page at a time, the page's reveals counted once and audited in batches. */
export function makeEnvironmentValueStore(db: Db, pager: Pager, limiter: RevealLimiter = makeRevealLimiter(db)) {
  return {
    /** One Query: the environment's current values by key (A→Z), only `keys` when given. */
    async listEnvironmentValues(
      workspaceId: string,
      environmentId: string,
      page: PageRequest,
      onlyKeys?: readonly string[],
      keepKey?: (key: string) => boolean,
    ): Promise<Page<EnvironmentValue> & { cursorAfter: (index: number) => Promise<string> }> {
      const filter = onlyKeys && {
        FilterExpression: `#key IN (${onlyKeys.map((_, i) => `:k${i}`).join(', ')})`,
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: Object.fromEntries(onlyKeys.map((key, i) => [`:k${i}`, key])),
      };
      const input = {
        scope: `values:${workspaceId}:${environmentId}:${onlyKeys ? [...onlyKeys].sort().join('\n') : '*'}`,
        ...patterns.valuesByEnvironment(workspaceId, environmentId),
        newestFirst: false,
        ...(filter && { filter }),
        ...(keepKey && { keep: (item: Record<string, unknown>) => keepKey(item.key as string) }),
        ...page,
      };
      const result = await pager.queryPage<Record<string, unknown>>(input);
      const items = result.items.map((item) => ({
        id: item.id as string,
        key: item.key as string,
        version: item.version as number,
        sealed: fromStored(item.sealed as Record<string, unknown>),
        ...(item.encoding === 'base64' && { encoding: 'base64' as const }),
        ...(Array.isArray(item.references) && { references: item.references as string[] }),
      }));
      return { ...result, items, cursorAfter: (index) => pager.cursorAfter(input, result.items[index]!) };
    },

    /**
     * Gives every secret of an environment created before value items existed its item, once: the first load of
     * such an environment (its item lacks `valuesIndexed`) reads the key items (one Query a MB), the heads (one
     * BatchGetItem per 100), and writes each missing item in a transaction that checks the head still holds that
     * version, so a secret deleted or rewritten meanwhile is never given a stale or orphaned item (a rewrite writes
     * its own). Then it marks the environment. Safe to run twice or concurrently; environments created since are
     * marked at creation and never come here.
     */
    async indexEnvironmentValues(workspaceId: string, environmentId: string): Promise<void> {
      const listed = await queryAll<{ id: string }>(db, patterns.secretsByEnvironment(workspaceId, environmentId), {
        projection: ['id'],
        consistent: true,
      });
      for (let start = 0; start < listed.length; start += 100) {
        const heads = await batchRead(
          db,
          listed.slice(start, start + 100).map(({ id }) => keys.secretHead(workspaceId, id)),
        );
        const writes = [...heads.values()]
          // A secret without a value has no value item.
          .filter((head): head is Record<string, unknown> => head !== undefined && head.sealed !== undefined)
          .map((head) => {
            const version = head.currentVersion as number;
            const value = {
              id: head.id as string,
              key: head.key as string,
              version,
              environmentId,
              sealed: fromStored(head.sealed as Record<string, unknown>),
              ...(head.encoding === 'base64' && { encoding: 'base64' as const }),
              // The marker the load resolves by, should a secret written since v1.4 get its item here.
              ...(Array.isArray(head.references) && { references: head.references as string[] }),
            };
            const put = environmentValuePut(db, workspaceId, value).Put!;
            return transact(
              db,
              [
                {
                  ConditionCheck: {
                    TableName: db.tableName,
                    Key: keys.secretHead(workspaceId, value.id),
                    ConditionExpression: 'currentVersion = :v',
                    ExpressionAttributeValues: { ':v': version },
                  },
                },
                {
                  Put: {
                    ...put,
                    ConditionExpression: 'attribute_not_exists(PK) OR version < :v',
                    ExpressionAttributeValues: { ':v': version },
                  },
                },
              ],
              [0, 1],
              { contention: 'handled' },
            );
          });
        // A failed condition or contention means a concurrent write or delete already settled that secret.
        await Promise.all(writes);
      }
      await send(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.environment(workspaceId, environmentId),
          UpdateExpression: 'SET valuesIndexed = :yes',
          ExpressionAttributeValues: { ':yes': true },
        }),
      );
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
