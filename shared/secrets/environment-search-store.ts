import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../platform/store/conditional.ts';
import { gsi4, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { itemKeyString } from '../platform/prefetch.ts';
import { queryAll, queryInput, type Page, type PageRequest } from '../platform/store/query.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import { send, type Db } from '../platform/store/send.ts';
import { toRecord, type SecretRecord } from './secret-record.ts';

/** An environment a search reads, as much of it as the search needs. */
export interface SearchedEnvironment {
  id: string;
  projectId: string;
  projectSlug: string;
  slug: string;
}

/** What a scoped search keeps of what it reads: the caller's verdict on one key of one environment. */
export type KeepKey = (environment: SearchedEnvironment, key: string) => boolean;

/** Scoped searches read the environments of at most this many projects; a wider scope searches the workspace. */
export const MAX_SEARCHED_PROJECTS = 5;

/** A search reads on past what it does not keep for at most this long, and this many Query pages per environment. */
const BUDGET_MS = 3_000;
const MAX_READS = 20;
/** Index updates the first scoped search of an old environment keeps in flight. */
const UPDATES_IN_FLIGHT = 16;

/** One environment's newest matches, read down from `before`. */
interface Frontier {
  kept: Record<string, unknown>[];
  /** Where reading stopped short of the end and of `limit + 1` kept items: nothing older than this was seen. */
  stoppedAt: string | undefined;
}

/**
 * Search within some environments (a credential scoped to them), newest first, through each environment's GSI4
 * partition instead of the workspace's: every environment is read down from the cursor's position until it has
 * `limit + 1` kept matches or ends, and the newest `limit` of all of them make the page. An environment cut short
 * by the time budget bounds the page: only what is newer than where it stopped is answered, and the cursor resumes
 * there. Each page then reads the answered records from the table (the index holds only keys).
 */
export function makeEnvironmentSearchStore(db: Db, pager: Pager) {
  async function readEnvironment(
    workspaceId: string,
    environment: SearchedEnvironment,
    q: string | undefined,
    limit: number,
    before: string | undefined,
    keep: KeepKey | undefined,
    started: number,
  ): Promise<Frontier> {
    const input = queryInput(db, patterns.secretsOfEnvironment(workspaceId, environment.id), {
      newestFirst: true,
      ...(before !== undefined && { skBefore: before }),
      ...(q && { filter: { FilterExpression: 'contains(keyLower, :q)', ExpressionAttributeValues: { ':q': q.toLowerCase() } } }),
    });
    const kept: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    let reads = 0;
    do {
      const out = await send<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>(
        db,
        new QueryCommand({
          ...input,
          ExclusiveStartKey: startKey,
          Limit: Math.min(1000, (limit + 1 - kept.length) * (reads === 0 ? 1 : 4)),
        }),
      );
      for (const item of out.Items ?? []) if (!keep || keep(environment, item.key as string)) kept.push(item);
      startKey = out.LastEvaluatedKey;
      reads++;
    } while (startKey && kept.length <= limit && reads < MAX_READS && Date.now() - started < BUDGET_MS);
    const stoppedAt = startKey && kept.length <= limit ? (startKey.GSI4SK as string) : undefined;
    return { kept, stoppedAt };
  }

  return {
    /**
     * The environments of the projects named by their slugs (projects that do not exist are left out), with whether
     * each is in the search index yet: one GetItem per slug and one Query per project found.
     */
    async environmentsOfProjects(
      workspaceId: string,
      projectSlugs: readonly string[],
    ): Promise<(SearchedEnvironment & { searchIndexed: boolean })[]> {
      const projects = (await Promise.all(projectSlugs.map((slug) => getItem(db, keys.projectSlug(workspaceId, slug))))).filter(
        (p) => p !== undefined,
      );
      const lists = await Promise.all(
        projects.map(async (project) =>
          (await queryAll<Record<string, unknown>>(db, patterns.environmentsByProject(workspaceId, project.id as string))).map((e) => ({
            id: e.id as string,
            projectId: project.id as string,
            projectSlug: project.slug as string,
            slug: e.slug as string,
            searchIndexed: e.searchIndexed === true,
          })),
        ),
      );
      return lists.flat();
    },

    /** A page of the search over `environments` (each already visible to the caller); `keep` filters by key. */
    async searchEnvironments(
      workspaceId: string,
      environments: readonly SearchedEnvironment[],
      q: string | undefined,
      page: PageRequest,
      keep?: KeepKey,
    ): Promise<Page<SecretRecord>> {
      const scope = `search-environments:${workspaceId}:${q ?? ''}:${environments
        .map((e) => e.id)
        .sort()
        .join(',')}`;
      const codec = await pager.codec();
      const before = page.cursor ? codec.decode(scope, page.cursor).before : undefined;
      if (before !== undefined && typeof before !== 'string') codec.reject();
      const started = Date.now();
      const frontiers = await Promise.all(
        environments.map((e) => readEnvironment(workspaceId, e, q, page.limit, before as string | undefined, keep, started)),
      );
      const cutoff = frontiers.reduce<string | undefined>(
        (max, f) => (f.stoppedAt !== undefined && (max === undefined || f.stoppedAt > max) ? f.stoppedAt : max),
        undefined,
      );
      const merged = frontiers
        .flatMap((f) => f.kept)
        .filter((item) => cutoff === undefined || (item.GSI4SK as string) > cutoff)
        .sort((a, b) => ((a.GSI4SK as string) < (b.GSI4SK as string) ? 1 : -1));
      const items = merged.slice(0, page.limit);
      const next = merged.length > page.limit ? (items.at(-1)!.GSI4SK as string) : cutoff;
      const records = await batchRead(
        db,
        items.map((item) => ({ PK: item.PK as string, SK: item.SK as string })),
        { consistent: false },
      );
      // A secret deleted between the index read and this one is left out.
      const found = items
        .map((item) => toRecord(records.get(itemKeyString({ PK: item.PK as string, SK: item.SK as string }))!))
        .filter((r): r is SecretRecord => r !== undefined);
      return { items: found, hasMore: next !== undefined, nextCursor: next === undefined ? null : codec.encode(scope, { before: next }) };
    },

    /**
     * Gives every secret of an environment made before GSI4 its index keys, once: the first scoped search of such an
     * environment (its items lack `searchIndexed`) reads the key items (one Query a MB) and updates each, on
     * condition that it still exists (a secret deleted meanwhile is not brought back); then marks the environment
     * (by id and in its project's list). Safe to run twice or concurrently; environments made since are marked at
     * creation, and secrets written since carry their keys.
     */
    async indexEnvironmentSearch(workspaceId: string, environment: { id: string; projectId: string }): Promise<void> {
      const listed = await queryAll<{ PK: string; SK: string; id: string }>(
        db,
        patterns.secretsByEnvironment(workspaceId, environment.id),
        { projection: ['PK', 'SK', 'id'], consistent: true },
      );
      const pending = [...listed];
      const lanes = Array.from({ length: Math.min(UPDATES_IN_FLIGHT, pending.length) }, async () => {
        for (let item = pending.shift(); item; item = pending.shift()) {
          const index = gsi4.environmentSecret(workspaceId, environment.id, item.id);
          await sendConditional(
            db,
            new UpdateCommand({
              TableName: db.tableName,
              Key: { PK: item.PK, SK: item.SK },
              UpdateExpression: 'SET GSI4PK = :pk, GSI4SK = :sk',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':pk': index.GSI4PK, ':sk': index.GSI4SK },
            }),
          );
        }
      });
      await Promise.all(lanes);
      for (const key of [
        keys.environment(workspaceId, environment.id),
        keys.projectEnvironment(workspaceId, environment.projectId, environment.id),
      ]) {
        await sendConditional(
          db,
          new UpdateCommand({
            TableName: db.tableName,
            Key: key,
            UpdateExpression: 'SET searchIndexed = :yes',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':yes': true },
          }),
        );
      }
    },
  };
}
