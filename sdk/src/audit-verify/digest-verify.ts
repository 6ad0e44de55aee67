import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { type DigestedEntry, entriesSha256, inIdOrder } from './digest-canonical.js';
import {
  type AuditDigest,
  DEFAULT_PERIOD_SECONDS,
  digestSha256,
  periodDueAt,
  periodStart,
  signedBytes,
  unsignedDigest,
} from './digest-record.js';

/**
 * `secrets audit verify`'s check, with the public key alone: each period's entries against its digest, the chain
 * of digests, and every signature. Periods are checked oldest first and, inside one, the digest before its entries,
 * so the break answered is the first in time. How each break is told (decisions.md names them):
 * - `digest-missing`: a period has entries but no digest (a period without entries has none, by design), unless
 *   the chain shows there never was one: when the next digest is validly signed and links straight to the digest
 *   before the period, no digest was made for it, so its entries were added later: `entry-added`, naming the first.
 *   At either end of the range (no digest before or after to ask) it stays `digest-missing`.
 * - `bad-signature` / `digest-changed`: a digest's signature does not verify. If every field it holds is what the
 *   entries and the chain give (count, firstId, lastId, entriesSha256, previousDigestSha256, hourStart, workspaceId
 *   as far as they can be known), only the signature is wrong (another key, damaged bytes): `bad-signature`. If a
 *   field differs, someone changed the digest after it was signed, which is what broke its signature:
 *   `digest-changed`, the cause rather than its symptom. A digest re-signed with another key after an edit that
 *   matches altered entries reads as `bad-signature`, which is what it is. Two digests for one period, and a validly
 *   signed digest of another workspace among them, are `digest-changed` too.
 * - `chain-broken`: a validly signed digest whose previousDigestSha256 is not the hash of the digest before it in
 *   the range (a period's digest and entries removed together, or a digest of another chain spliced in).
 * - entry breaks, for a validly signed digest whose entriesSha256 differs from its period's entries (sorted by id
 *   first, so an order of storage is never a break): fewer entries than `count` is `entry-missing` (naming firstId
 *   or lastId when that one is absent), more is `entry-added` (naming an entry outside firstId..lastId when there is
 *   one), as many is `entry-changed` (contents edited or swapped between ids). A digest holds no per-entry hash, so
 *   which entry of a period changed cannot be told: the break names the period's hourStart, and the id when known.
 * What no check here can see: a period removed whole (entries and digest) after the range's last digest, or before
 * its first, since no digest in the range links to it; the Object Lock copy of each digest in S3 is what keeps those.
 */

export type AuditBreak =
  | 'entry-changed'
  | 'entry-missing'
  | 'entry-added'
  | 'digest-missing'
  | 'digest-changed'
  | 'chain-broken'
  | 'bad-signature';

/** The outcome of a verification: counts when intact, else the first break in time. */
export type VerifyResult =
  | { ok: true; entries: number; digests: number }
  | { ok: false; break: AuditBreak; id?: string; hourStart?: string };

type Broken = Extract<VerifyResult, { ok: false }>;

export interface VerifyInput {
  /** SPKI PEM of the digest key, as `GET /api/v1/audit/public-key` answers it. */
  publicKeyPem: string;
  /** The workspace's entries over `verifiedRange`, as `GET /api/v1/audit` answers them, in any order. */
  entries: readonly DigestedEntry[];
  /** The workspace's digests over `verifiedRange`, in any order. */
  digests: readonly AuditDigest[];
  since: string;
  /** Defaults to now. */
  until?: string;
  /** The service's AUDIT_DIGEST_PERIOD_SECONDS (default 3600): a digest does not say how long its period is. */
  periodSeconds?: number;
  /** Epoch ms; defaults to the clock. Periods whose digest is not yet due at `now` are not checked. */
  now?: number;
}

/**
 * The whole periods a verification covers, as epoch ms [from, to): `since` down to its period's start, `until` up
 * to its period's end (a period is checked whole or not at all, its hash covers all its entries), and no period
 * whose digest is not due yet at `now`. The caller reads entries and digests over this range, not over since..until.
 */
export function verifiedRange(input: { since: string; until?: string; periodSeconds: number; now: number }): { from: number; to: number } {
  const { periodSeconds, now } = input;
  const since = Date.parse(input.since);
  const until = input.until === undefined ? now : Date.parse(input.until);
  if (Number.isNaN(since) || Number.isNaN(until)) throw new RangeError('since and until must be ISO 8601 times');
  const step = periodSeconds * 1000;
  const from = periodStart(since, periodSeconds);
  const upTo = periodStart(until - 1, periodSeconds) + step;
  // The latest period due at `now` starts at or before now less its length and a third.
  const lastDue = periodStart(now - periodDueAt(0, periodSeconds), periodSeconds);
  return { from, to: Math.max(from, Math.min(upTo, lastDue + step)) };
}

/** Items grouped by the start (epoch ms) of their period, keeping only those inside [from, to). */
function byPeriod<T>(items: readonly T[], at: (item: T) => number, range: { from: number; to: number }, periodSeconds: number) {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const ms = at(item);
    if (!(ms >= range.from && ms < range.to)) continue;
    const start = periodStart(ms, periodSeconds);
    const group = groups.get(start);
    if (group) group.push(item);
    else groups.set(start, [item]);
  }
  return groups;
}

/** What the check of one period needs to carry to the next. */
interface Chain {
  key: KeyObject;
  periodSeconds: number;
  /** The last digest checked: the next one's `previousDigestSha256` must be its hash. Null before the range's first. */
  previous: AuditDigest | null;
  /** The workspace of the first validly signed digest: every other one must be of it. */
  workspaceId: string | undefined;
}

/** Whether a digest's signature verifies over its signed bytes with the public key; a malformed signature does not. */
function signatureHolds(key: KeyObject, digest: AuditDigest): boolean {
  // A digest read from a copy of the bucket may hold anything there; bytes that are no DER signature verify as false.
  if (typeof digest.signature !== 'string') return false;
  return verify('sha256', signedBytes(digest), { key, dsaEncoding: 'der' }, Buffer.from(digest.signature, 'base64'));
}

/**
 * Whether every field of a digest is what its period's entries and the chain give: then a failing signature is the
 * signature's fault alone. The range's first digest links outside the range, and the workspace is unknown before a
 * valid digest names it: those two are not held against it.
 */
function fieldsAgree(chain: Chain, digest: AuditDigest, start: number, entries: readonly DigestedEntry[]): boolean {
  if (entries.length === 0) return false;
  const expected = unsignedDigest({
    workspaceId: chain.workspaceId ?? digest.workspaceId,
    hourStart: new Date(start).toISOString(),
    entries,
    previous: chain.previous,
  });
  if (chain.previous === null) expected.previousDigestSha256 = digest.previousDigestSha256;
  return (Object.keys(expected) as (keyof typeof expected)[]).every((field) => expected[field] === digest[field]);
}

/** The entry break of a validly signed digest whose entries hash differs; undefined when they match. */
function entryBreak(digest: AuditDigest, entries: readonly DigestedEntry[]): Broken | undefined {
  const ordered = inIdOrder(entries);
  if (entriesSha256(ordered) === digest.entriesSha256) return undefined;
  const present = new Set(ordered.map((entry) => entry.id));
  const absentEnd = [digest.firstId, digest.lastId].find((id) => !present.has(id));
  const outside = ordered.find((entry) => entry.id < digest.firstId || entry.id > digest.lastId)?.id;
  const at = { hourStart: digest.hourStart };
  if (ordered.length < digest.count) return { ok: false, break: 'entry-missing', ...at, ...(absentEnd && { id: absentEnd }) };
  if (ordered.length > digest.count) return { ok: false, break: 'entry-added', ...at, ...(outside && { id: outside }) };
  const changed = outside ?? absentEnd;
  return { ok: false, break: 'entry-changed', ...at, ...(changed && { id: changed }) };
}

/** The first break of one period with a digest, oldest first; moves the chain on when the digest holds. */
function periodBreak(chain: Chain, start: number, digests: readonly AuditDigest[], entries: readonly DigestedEntry[]): Broken | undefined {
  const digest = digests[0]!;
  const at = { hourStart: digest.hourStart };
  if (!signatureHolds(chain.key, digest)) {
    return { ok: false, break: fieldsAgree(chain, digest, start, entries) ? 'bad-signature' : 'digest-changed', ...at };
  }
  if (Date.parse(digest.hourStart) !== start) {
    // Signed as it is, so not tampered with: the verifier's period is not the one the digests were made with.
    throw new RangeError(`A digest starts at ${digest.hourStart}, not on a ${chain.periodSeconds}-second period: check the digest period`);
  }
  chain.workspaceId ??= digest.workspaceId;
  if (digests.length > 1 || digest.workspaceId !== chain.workspaceId) return { ok: false, break: 'digest-changed', ...at };
  if (chain.previous !== null && digest.previousDigestSha256 !== digestSha256(chain.previous))
    return { ok: false, break: 'chain-broken', ...at };
  chain.previous = digest;
  return entryBreak(digest, entries);
}

/** The digest of the first of `later` periods that has one. */
function nextDigest(digests: ReadonlyMap<number, readonly AuditDigest[]>, later: readonly number[]): AuditDigest | undefined {
  for (const start of later) {
    const found = digests.get(start);
    if (found) return found[0];
  }
  return undefined;
}

/**
 * The break of a period with entries and no digest: `entry-added` when the next digest (the first after the period)
 * is validly signed and chains straight to the digest before it, so none was ever made; `digest-missing` otherwise.
 */
function undigestedBreak(chain: Chain, start: number, entries: readonly DigestedEntry[], next: AuditDigest | undefined): Broken {
  const hourStart = new Date(start).toISOString();
  const linkedOver =
    chain.previous !== null &&
    next !== undefined &&
    signatureHolds(chain.key, next) &&
    next.previousDigestSha256 === digestSha256(chain.previous);
  if (!linkedOver) return { ok: false, break: 'digest-missing', hourStart };
  return { ok: false, break: 'entry-added', id: inIdOrder(entries)[0]!.id, hourStart };
}

/**
 * Verifies a workspace's audit entries and digests over `verifiedRange` with the public key alone: `{ok: true}`
 * with the entries and digests checked, or the first break in time (module comment: how each is told). The range's
 * first digest anchors the chain: its own link points before the range and is not checked.
 */
export function verifyAudit(input: VerifyInput): VerifyResult {
  const periodSeconds = input.periodSeconds ?? DEFAULT_PERIOD_SECONDS;
  const range = verifiedRange({ since: input.since, until: input.until, periodSeconds, now: input.now ?? Date.now() });
  const entries = byPeriod(input.entries, (entry) => Date.parse(entry.createdAt), range, periodSeconds);
  const digests = byPeriod(input.digests, (digest) => Date.parse(digest.hourStart), range, periodSeconds);
  const chain: Chain = { key: createPublicKey(input.publicKeyPem), periodSeconds, previous: null, workspaceId: undefined };
  const starts = [...new Set([...entries.keys(), ...digests.keys()])].sort((a, b) => a - b);
  let checked = { entries: 0, digests: 0 };
  for (const [at, start] of starts.entries()) {
    const periodEntries = entries.get(start) ?? [];
    const periodDigests = digests.get(start);
    if (!periodDigests) return undigestedBreak(chain, start, periodEntries, nextDigest(digests, starts.slice(at + 1)));
    const broken = periodBreak(chain, start, periodDigests, periodEntries);
    if (broken) return broken;
    checked = { entries: checked.entries + periodEntries.length, digests: checked.digests + 1 };
  }
  return { ok: true, ...checked };
}
