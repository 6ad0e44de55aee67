import type { SealedValue } from '../crypto/envelope.ts';
import type { AuditEntry } from './audit.ts';
import { transact, type TransactItem } from './conditional.ts';
import { ENTITY, keys, patterns } from './keys.ts';
import type { Pager } from './pager.ts';
import type { Page, PageRequest } from './query.ts';
import { batchWrite } from './reads.ts';
import { revealCounters, revealLimitError, type RevealLimit } from './reveal-limits.ts';
import { fromStored, toStored } from './sealed.ts';
import type { Db } from './send.ts';

/** A secret's current value as loading an environment reads it. */
export interface EnvironmentValue {
  id: string;
  key: string;
  version: number;
  sealed: SealedValue;
}

/**
 * The transaction item that keeps an environment's value item in step with a write. Unconditional: the head's
 * condition in the same transaction already settles the race, and a secret written before these items existed
 * gets its item on its next write.
 */
export function environmentValuePut(db: Db, workspaceId: string, value: EnvironmentValue & { environmentId: string }): TransactItem {
  const { environmentId, sealed, ...rest } = value;
  return {
    Put: {
      TableName: db.tableName,
      Item: { ...keys.environmentValue(workspaceId, environmentId, value.key), type: ENTITY.environmentValue, ...rest, sealed: toStored(sealed) },
    },
  };
}

/** The transaction item that removes it with the secret. */
export function environmentValueDelete(db: Db, workspaceId: string, environmentId: string, key: string): TransactItem {
  return { Delete: { TableName: db.tableName, Key: keys.environmentValue(workspaceId, environmentId, key) } };
}

/** Loading an environment: its values a page at a time, the page's reveals counted once and audited in batches. */
export function makeEnvironmentValueStore(db: Db, pager: Pager) {
  return {
    /** What loading an environment reads ahead with the credential: the environment. */
    environmentKeys(workspaceId: string, environmentId: string) {
      return [keys.environment(workspaceId, environmentId)];
    },

    /** One Query: the environment's current values by key (A→Z), only `keys` when given. */
    async listEnvironmentValues(workspaceId: string, environmentId: string, page: PageRequest, onlyKeys?: readonly string[]): Promise<Page<EnvironmentValue> & { cursorAfter: (index: number) => Promise<string> }> {
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
        ...page,
      };
      const result = await pager.queryPage<Record<string, unknown>>(input);
      const items = result.items.map((item) => ({ id: item.id as string, key: item.key as string, version: item.version as number, sealed: fromStored(item.sealed as Record<string, unknown>) }));
      return { ...result, items, cursorAfter: (index) => pager.cursorAfter(input, result.items[index]!) };
    },

    /**
     * Counts one page as one reveal against the credential's per-minute limit and the workspace's ceiling (one
     * transaction of the two counters: one request), refusing it with RATE_LIMITED when either is reached.
     */
    async countRevealPage(workspaceId: string, limit: RevealLimit): Promise<void> {
      const failed = await transact(db, revealCounters(db, workspaceId, limit), [0, 1]);
      if (failed !== undefined) throw revealLimitError(failed, limit);
    },

    /**
     * Writes the page's audit entries durably, 25 a request, sending unprocessed ones again with backoff; when they
     * cannot all be written it fails with SERVICE_UNAVAILABLE and the caller returns no value.
     */
    async writeAuditEntries(workspaceId: string, entries: readonly AuditEntry[]): Promise<void> {
      await batchWrite(db, entries.map((entry) => ({ PutRequest: { Item: { ...keys.audit(workspaceId, entry.id), type: ENTITY.audit, workspaceId, ...entry } } })));
    },
  };
}

export type EnvironmentValueStore = ReturnType<typeof makeEnvironmentValueStore>;
