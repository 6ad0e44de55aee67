import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { entriesOfItem, type AuditEntry, type PackedFields } from '../audit/index.ts';
import { iso } from '../platform/clock.ts';
import { idTime, ulidCeil, ulidFloor } from '../platform/ids.ts';
import { sendConditional } from '../platform/store/conditional.ts';
import { pick } from '../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import type { Pager } from '../platform/store/pager.ts';
import { queryAll, queryInput, type Page, type PageRequest } from '../platform/store/query.ts';
import { send, type Db } from '../platform/store/send.ts';
import { DIGESTED_FIELDS, type DigestedEntry } from './digest-canonical.ts';
import type { AuditDigest } from './digest-record.ts';

/**
 * Digests as items of the table, in their workspace's audit partition (`DIGEST#<hourStart>`, type `AuditDigest`),
 * where `GET /api/v1/audit/digests` reads them and the digester finds the last one, and the reads of the entries a
 * digest covers. The bucket's copy (digest-bucket.ts) is the one Object Lock keeps; this one is for the API.
 */

/** The fields of a stored digest that are the digest: the item's keys, type and timestamp are never answered. */
export const DIGEST_FIELDS: readonly (keyof AuditDigest)[] = [
  'workspaceId',
  'hourStart',
  'count',
  'firstId',
  'lastId',
  'entriesSha256',
  'previousDigestSha256',
  'signature',
];

/** One DynamoDB page of a period range's entries, oldest first, and how far (epoch ms of a ULID) the read got. */
export interface EntryPage {
  entries: DigestedEntry[];
  /** The ULID time of the last item read: every entry with an id at or before it has been read. */
  reachedMs: number;
}

/** The stored item of a digest, made at `now` (epoch ms). */
export function digestItem(digest: AuditDigest, now: number): Record<string, unknown> {
  return { ...keys.auditDigest(digest.workspaceId, digest.hourStart), type: ENTITY.auditDigest, ...digest, createdAt: iso(now) };
}

/** The digest an item holds, its own fields only (null fields kept: a first digest's previousDigestSha256). */
function toDigest(item: Record<string, unknown>): AuditDigest {
  return pick<AuditDigest>(item, DIGEST_FIELDS)!;
}

/** An entry as a digest covers it, from an entry of a stored item: only the fields the API answers. */
function toDigested(entry: AuditEntry): DigestedEntry {
  return pick<DigestedEntry>(entry as unknown as Record<string, unknown>, DIGESTED_FIELDS)!;
}

/**
 * The digest store over the table (and, for the paged list, the project's Pager with its sealed cursors).
 */
export function makeDigestStore(db: Db, pager: Pager) {
  return {
    /**
     * The workspace's latest digest, or null: one Query of the digests, newest first, limit 1. A strong read, so a
     * digest put by the previous run is always seen and the chain goes on from it rather than forking.
     */
    async lastDigest(workspaceId: string): Promise<AuditDigest | null> {
      const input = queryInput(db, patterns.auditDigestsByWorkspace(workspaceId), { newestFirst: true, consistent: true });
      const out = await send<{ Items?: Record<string, unknown>[] }>(db, new QueryCommand({ ...input, Limit: 1 }));
      const item = out.Items?.[0];
      return item ? toDigest(item) : null;
    },

    /**
     * The workspace's digests whose period starts in [since, until] (epoch ms, both ends inclusive), oldest first
     * (the order a verifier walks the chain), paged with the Pager's cursors like the audit list.
     */
    async listDigests(workspaceId: string, page: PageRequest, range: { since: number; until: number }): Promise<Page<AuditDigest>> {
      const result = await pager.queryPage<Record<string, unknown>>({
        scope: `audit-digests:${workspaceId}:${range.since}:${range.until}`,
        ...patterns.auditDigestsByWorkspace(workspaceId),
        skBetween: [`DIGEST#${iso(range.since)}`, `DIGEST#${iso(range.until)}`],
        newestFirst: false,
        ...page,
      });
      return { ...result, items: result.items.map(toDigest) };
    },

    /**
     * The entries with ids in [from, to] (epoch ms), oldest first, one DynamoDB page at a time: one Query of the
     * sort-key range, each stored item expanded into its entries (audit-packing.ts). Eventually consistent: a
     * period is read a third of a period after its end, long after its last write is everywhere.
     */
    async *entryPages(workspaceId: string, from: number, to: number): AsyncGenerator<EntryPage> {
      const range: [string, string] = [`aud_${ulidFloor(from)}`, `aud_${ulidCeil(to)}`];
      const input = queryInput(db, patterns.auditByWorkspace(workspaceId), { skBetween: range });
      let startKey: Record<string, unknown> | undefined;
      let reachedMs = from;
      do {
        const out = await send<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>(
          db,
          new QueryCommand({ ...input, ExclusiveStartKey: startKey }),
        );
        const items = (out.Items ?? []) as (AuditEntry & PackedFields & Record<string, unknown>)[];
        if (items.length > 0) reachedMs = idTime(items.at(-1)!.SK as string);
        yield { entries: items.flatMap((item) => entriesOfItem(item).map(toDigested)), reachedMs };
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    },

    /** Every workspace's id, from the GSI2 list of workspaces (ids only; never a Scan). */
    async workspaceIds(): Promise<string[]> {
      const items = await queryAll<{ GSI2SK: string }>(db, patterns.allWorkspaces(), { projection: ['GSI2SK'] });
      return items.map((item) => item.GSI2SK);
    },

    /**
     * Puts a digest's item unless one is there for its period: answers 'exists' then (another run got there; the
     * bucket's copy, which cannot be overwritten, is what both runs agreed on), never overwrites.
     */
    async putDigest(digest: AuditDigest, now: number): Promise<'written' | 'exists'> {
      const written = await sendConditional(
        db,
        new PutCommand({ TableName: db.tableName, Item: digestItem(digest, now), ConditionExpression: 'attribute_not_exists(PK)' }),
      );
      return written ? 'written' : 'exists';
    },
  };
}

/** The digest store's methods, which the maker and the route ask for by name (`Pick<DigestStore, 'lastDigest'>`). */
export type DigestStore = ReturnType<typeof makeDigestStore>;
