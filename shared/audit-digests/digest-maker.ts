import { verify } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../platform/logger.ts';
import { canonicalLines, type DigestedEntry } from './digest-canonical.ts';
import { digestKey, entriesKey, type DigestBucket } from './digest-bucket.ts';
import {
  type AuditDigest,
  digestJson,
  periodDueAt,
  periodStart,
  periodsToDigest,
  signedBytes,
  type UnsignedDigest,
  unsignedDigest,
} from './digest-record.ts';
import { signDigest, type DigestSigner } from './digest-signer.ts';
import type { DigestStore, EntryPage } from './digest-store.ts';

/**
 * One run of the digester (decisions.md, "Audit streams and tamper evidence"): for every workspace, the digests of
 * the periods due since its last one, each chained to the one before, signed, written to the bucket (entries, then
 * digest) and then put in the table. The bucket is written first because it is the copy that cannot be changed: a
 * run that stops between the two leaves a digest the next run finds there and adopts, never a second one.
 */

export interface DigestMakerDeps {
  store: Pick<DigestStore, 'lastDigest' | 'entryPages' | 'putDigest'>;
  /** Every workspace id (the GSI2 list of workspaces, `patterns.allWorkspaces`). */
  workspaces: () => Promise<string[]>;
  bucket: DigestBucket;
  signer: DigestSigner;
  periodSeconds: number;
  log: Pick<Logger, 'error'>;
}

/** What a run did: workspaces looked at, digests made, workspaces that failed (each logged by id, never by value). */
export interface DigestRun {
  workspaces: number;
  digests: number;
  failed: number;
}

/** A stored digest that is not the one a period's entries and chain make: the workspace stops until someone looks. */
export class DigestConflictError extends Error {
  override name = 'DigestConflictError';
  readonly hourStart: string;
  constructor(hourStart: string) {
    super('The stored digest of a period is not the one its entries and chain make');
    this.hourStart = hourStart;
  }
}

/** A period's entries, grouped as read. */
interface Period {
  start: number;
  entries: DigestedEntry[];
}

/**
 * The periods with entries of `pages`, oldest first, each once it is whole: entries by their `createdAt`, none
 * before `from` (a period digested already, by an earlier run or this one). An entry's id can be a little later
 * than its createdAt (ULIDs are monotonic in a container, so one made for an earlier `now` takes the later time),
 * so a period is whole only once the read is `slackMs` past its end, and the caller reads ids that far past its
 * last due period. A period that is not due yet is given too: the caller stops at it (periodsToDigest).
 */
export async function* periodsOf(pages: AsyncIterable<EntryPage>, range: { from: number; slackMs: number; periodSeconds: number }) {
  const step = range.periodSeconds * 1000;
  const open = new Map<number, DigestedEntry[]>();
  let from = range.from;
  const whole = function* (upTo: number): Generator<Period> {
    for (const start of [...open.keys()].sort((a, b) => a - b)) {
      if (start + step > upTo) return;
      yield { start, entries: open.get(start)! };
      open.delete(start);
      // An entry of a period already given (its id far later than its time) cannot join it any more.
      from = start + step;
    }
  };
  for await (const page of pages) {
    for (const entry of page.entries) {
      const at = Date.parse(entry.createdAt);
      if (at < from) continue;
      const start = periodStart(at, range.periodSeconds);
      const group = open.get(start);
      if (group) group.push(entry);
      else open.set(start, [entry]);
    }
    yield* whole(page.reachedMs - range.slackMs);
  }
  yield* whole(Number.POSITIVE_INFINITY);
}

/** Whether `stored` (read back from the bucket) is the digest this run would make: same fields, a valid signature. */
async function sameDigest(signer: DigestSigner, stored: AuditDigest, made: UnsignedDigest): Promise<boolean> {
  if (!signedBytes(stored).equals(signedBytes(made)) || typeof stored.signature !== 'string') return false;
  return verify(
    'sha256',
    signedBytes(stored),
    { key: await signer.publicKeyPem(), dsaEncoding: 'der' },
    Buffer.from(stored.signature, 'base64'),
  );
}

/** Parses a stored digest's JSON; anything that is not an object reads as undefined (then it is not the one). */
function parsedDigest(body: Buffer | undefined): AuditDigest | undefined {
  try {
    const value: unknown = body && JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as AuditDigest) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes one period's digest (bucket, then table) and answers the digest the chain goes on from. */
async function digestPeriod(deps: DigestMakerDeps, workspaceId: string, period: Period, previous: AuditDigest | null, now: number) {
  const { bucket, signer } = deps;
  const hourStart = new Date(period.start).toISOString();
  const made = unsignedDigest({ workspaceId, hourStart, entries: period.entries, previous });
  const digest = await signDigest(signer, made);
  // The entries first: a digest in the bucket always has its entries beside it.
  await bucket.putOnce(entriesKey(workspaceId, hourStart), gzipSync(canonicalLines(period.entries)), 'application/gzip');
  const key = digestKey(workspaceId, hourStart);
  let kept = digest;
  if ((await bucket.putOnce(key, digestJson(digest), 'application/json')) === 'exists') {
    // ECDSA signatures are not deterministic: the stored digest is compared on its fields and checked with the key.
    const stored = parsedDigest(await bucket.get(key));
    if (!stored || !(await sameDigest(signer, stored, made))) throw new DigestConflictError(hourStart);
    kept = stored;
  }
  await deps.store.putDigest(kept, now);
  return kept;
}

/** Digests one workspace's due periods from its last digest on, reading its entries with one paged Query. */
async function digestWorkspace(deps: DigestMakerDeps, workspaceId: string, now: number): Promise<number> {
  const { store, periodSeconds } = deps;
  const step = periodSeconds * 1000;
  const last = await store.lastDigest(workspaceId);
  const from = last ? Date.parse(last.hourStart) + step : 0;
  const lastDueStart = periodStart(now - periodDueAt(0, periodSeconds), periodSeconds);
  if (lastDueStart < from) return 0;
  const slackMs = periodDueAt(0, periodSeconds) - step;
  // Ids up to the last due period's due time: its end plus the slack, and never later than now.
  const pages = store.entryPages(workspaceId, from, lastDueStart + step + slackMs - 1);
  let previous = last;
  let allowed: string[] | undefined;
  let made = 0;
  for await (const period of periodsOf(pages, { from, slackMs, periodSeconds })) {
    allowed ??= periodsToDigest({ lastHourStart: last?.hourStart ?? null, firstEntryAt: period.start, now, periodSeconds });
    // periodsToDigest caps a run; leaving the loop ends the Query, and the next run goes on from the last digest.
    if (!allowed.includes(new Date(period.start).toISOString())) break;
    previous = await digestPeriod(deps, workspaceId, period, previous, now);
    made++;
  }
  return made;
}

/** The digester over its dependencies; `run(now)` digests every workspace's due periods. */
export function makeDigestMaker(deps: DigestMakerDeps) {
  return {
    /** Digests every workspace's due periods at `now`; one workspace's failure is logged and never stops the others. */
    async run(now: number): Promise<DigestRun> {
      const workspaceIds = await deps.workspaces();
      const run: DigestRun = { workspaces: workspaceIds.length, digests: 0, failed: 0 };
      for (const workspaceId of workspaceIds) {
        try {
          run.digests += await digestWorkspace(deps, workspaceId, now);
        } catch (error) {
          run.failed++;
          const hourStart = error instanceof DigestConflictError ? { hourStart: error.hourStart } : {};
          // Ids and the error's class only: an SDK error's message could quote a key or a stored value.
          deps.log.error('audit digests of a workspace failed', { workspaceId, ...hourStart, error: (error as Error).name ?? 'Error' });
        }
      }
      return run;
    },
  };
}

/** The digester, as its function builds it once per container. */
export type DigestMaker = ReturnType<typeof makeDigestMaker>;
