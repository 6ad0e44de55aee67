import type { DigestedEntry } from '../../../shared/audit-digests/digest-canonical.ts';
import type { DigestBucket } from '../../../shared/audit-digests/digest-bucket.ts';
import type { DigestMakerDeps } from '../../../shared/audit-digests/digest-maker.ts';
import type { AuditDigest } from '../../../shared/audit-digests/digest-record.ts';
import type { EntryPage } from '../../../shared/audit-digests/digest-store.ts';
import { idTime, ulidFloor } from '../../../shared/platform/ids.ts';

/** An entry made at `at` (ISO) whose id's time is `idAt` (defaults to `at`), numbered so ids sort by time then `n`. */
export function timedEntry(n: number, at: string, idAt: string = at): DigestedEntry {
  return {
    id: `aud_${ulidFloor(Date.parse(idAt)).slice(0, 10)}${String(n).padStart(16, '0')}`,
    action: 'secret.reveal',
    actorSub: 'ak_1',
    target: `sec_${n}`,
    metadata: { key: `K${n}` },
    createdAt: at,
  };
}

/** An in-memory digest store: entries and digests per workspace, entry pages of `pageSize`, and what it was asked. */
export function fakeStore(pageSize = 2) {
  const entries = new Map<string, DigestedEntry[]>();
  const digests = new Map<string, AuditDigest[]>();
  const queries: { workspaceId: string; from: number; to: number }[] = [];
  const failing = new Set<string>();
  const store: DigestMakerDeps['store'] = {
    async lastDigest(workspaceId) {
      if (failing.has(workspaceId)) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      const all = digests.get(workspaceId) ?? [];
      return [...all].sort((a, b) => (a.hourStart < b.hourStart ? -1 : 1)).at(-1) ?? null;
    },
    async *entryPages(workspaceId, from, to): AsyncGenerator<EntryPage> {
      queries.push({ workspaceId, from, to });
      const inRange = (entries.get(workspaceId) ?? [])
        .filter((entry) => idTime(entry.id) >= from && idTime(entry.id) <= to)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      for (let at = 0; at < inRange.length; at += pageSize) {
        const page = inRange.slice(at, at + pageSize);
        yield { entries: page, reachedMs: idTime(page.at(-1)!.id) };
      }
    },
    async putDigest(digest) {
      const all = digests.get(digest.workspaceId) ?? [];
      if (all.some((stored) => stored.hourStart === digest.hourStart)) return 'exists';
      digests.set(digest.workspaceId, [...all, digest]);
      return 'written';
    },
  };
  const add = (workspaceId: string, ...more: DigestedEntry[]) => entries.set(workspaceId, [...(entries.get(workspaceId) ?? []), ...more]);
  return { store, entries, digests, queries, failing, add };
}

/** An in-memory bucket that, like S3 with IfNoneMatch and the folder, never overwrites an object. */
export function fakeBucket(): DigestBucket & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    async putOnce(key, body) {
      if (objects.has(key)) return 'exists';
      objects.set(key, Buffer.from(body));
      return 'written';
    },
    async get(key) {
      return objects.get(key);
    },
  };
}
