import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../platform/store/conditional.ts';
import { gsi4, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { itemKeyString } from '../platform/prefetch.ts';
import { mergedPage } from '../platform/store/merged-page.ts';
import { queryAll, type Page, type PageRequest } from '../platform/store/query.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
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

/** A search reads at most this many Query pages per environment (and for at most 3 seconds: merged-page.ts). */
const MAX_READS = 20;
/** Index updates the first scoped search of an old environment keeps in flight. */
const UPDATES_IN_FLIGHT = 16;

/**
 * Search within some environments (a credential scoped to them), through each environment's GSI4 partition instead
 * of the workspace's, newest first or oldest first: the environments' lists merged by secret id
 * (shared/platform/store/merged-page.ts). Each page then reads the answered records from the table (the index holds
 * only keys).
 */
export function makeEnvironmentSearchStore(db: Db, pager: Pager) {
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
      newestFirst = true,
    ): Promise<Page<SecretRecord>> {
      const scope = `search-environments:${workspaceId}:${q ?? ''}:${environments
        .map((e) => e.id)
        .sort()
        .join(',')}`;
      const filter = q ? { FilterExpression: 'contains(keyLower, :q)', ExpressionAttributeValues: { ':q': q.toLowerCase() } } : undefined;
      const merged = await mergedPage(db, () => pager.codec(), {
        scope,
        ...page,
        newestFirst,
        maxReads: MAX_READS,
        lists: environments.map((e) => ({
          pattern: patterns.secretsOfEnvironment(workspaceId, e.id),
          ...(filter && { filter }),
          ...(keep && { keep: (item: Record<string, unknown>) => keep(e, item.key as string) }),
        })),
      });
      const itemKeys = merged.items.map(({ item }) => ({ PK: item.PK as string, SK: item.SK as string }));
      const records = await batchRead(db, itemKeys, { consistent: false });
      // A secret deleted between the index read and this one is left out.
      const found = itemKeys.map((key) => toRecord(records.get(itemKeyString(key)))).filter((r): r is SecretRecord => r !== undefined);
      return { items: found, hasMore: merged.hasMore, nextCursor: merged.nextCursor };
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

/** The search of environments and of the secrets' keys in them, which a service asks for by name. */
export type EnvironmentSearchStore = ReturnType<typeof makeEnvironmentSearchStore>;
