import { canonicalJson, type DigestedEntry, entriesSha256, inIdOrder, sha256Hex } from './digest-canonical.js';

/**
 * A digest of one workspace's audit entries in one period, chained to the workspace's previous digest and signed
 * (decisions.md, "Audit streams and tamper evidence"). A period with no entries has no digest.
 */
export interface AuditDigest {
  workspaceId: string;
  /** ISO 8601 UTC (milliseconds) of the period's start: the hour's, or the shorter period's under AUDIT_DIGEST_PERIOD_SECONDS. */
  hourStart: string;
  count: number;
  firstId: string;
  lastId: string;
  entriesSha256: string;
  /** SHA-256 hex of the previous digest's canonical JSON, signature included; null for the workspace's first. */
  previousDigestSha256: string | null;
  /** Base64 of the DER ECDSA P-256 / SHA-256 signature over `signedBytes` of the digest. */
  signature: string;
}

/** A digest before it is signed. */
export type UnsignedDigest = Omit<AuditDigest, 'signature'>;

/**
 * The fields of the digest of `entries` (a period's, at least one, in any order) of a workspace's period starting
 * at `hourStart`, chained to `previous` (the workspace's latest digest before it, or null for its first).
 */
export function unsignedDigest(input: {
  workspaceId: string;
  hourStart: string;
  entries: readonly DigestedEntry[];
  previous: AuditDigest | null;
}): UnsignedDigest {
  const ordered = inIdOrder(input.entries);
  // An empty period has no digest: firstId and lastId would name nothing.
  if (ordered.length === 0) throw new RangeError(`No audit entries to digest for the period at ${input.hourStart}`);
  return {
    workspaceId: input.workspaceId,
    hourStart: input.hourStart,
    count: ordered.length,
    firstId: ordered[0]!.id,
    lastId: ordered[ordered.length - 1]!.id,
    entriesSha256: entriesSha256(ordered),
    previousDigestSha256: input.previous ? digestSha256(input.previous) : null,
  };
}

/** The fields a digest's signature covers: all of them but the signature, named so nothing else can slip in. */
function unsignedFields(digest: UnsignedDigest): UnsignedDigest {
  const { workspaceId, hourStart, count, firstId, lastId, entriesSha256: sha, previousDigestSha256 } = digest;
  return { workspaceId, hourStart, count, firstId, lastId, entriesSha256: sha, previousDigestSha256 };
}

/**
 * The bytes a digest's signature is made over: the UTF-8 canonical JSON of the digest without `signature` (a field
 * of another name on the object is not signed, and not part of the digest).
 */
export function signedBytes(digest: UnsignedDigest): Buffer {
  return Buffer.from(canonicalJson(unsignedFields(digest)), 'utf8');
}

/**
 * The canonical JSON of a whole digest, signature included: the text `<hourStart>.digest.json` holds and the next
 * digest's `previousDigestSha256` hashes. Hashing the signature too means a digest re-signed (by anyone) breaks the
 * chain, not only one whose fields changed.
 */
export function digestJson(digest: AuditDigest): string {
  return canonicalJson({ ...unsignedFields(digest), signature: digest.signature });
}

/** SHA-256 hex of a digest's canonical JSON: what the next digest's `previousDigestSha256` holds. */
export function digestSha256(digest: AuditDigest): string {
  return sha256Hex(digestJson(digest));
}

/** The period when AUDIT_DIGEST_PERIOD_SECONDS is not set: the hour the contract names. */
export const DEFAULT_PERIOD_SECONDS = 3600;
const MIN_PERIOD_SECONDS = 60;
const HOUR_SECONDS = 3600;

/**
 * The digest period from `AUDIT_DIGEST_PERIOD_SECONDS` (unset or empty: 3600). Only whole seconds from 60 to 3600
 * that divide 3600 are taken, so periods always tile the hour and a period's start is also a start in every other
 * container's clock arithmetic; anything else is refused at cold start with an error naming the setting.
 */
export function digestPeriodSeconds(setting: string | undefined): number {
  if (setting === undefined || setting.trim() === '') return DEFAULT_PERIOD_SECONDS;
  const seconds = /^\d+$/.test(setting.trim()) ? Number(setting.trim()) : Number.NaN;
  // Dividing 3600 also bounds the period by the hour, and refuses NaN (what anything but digits reads as).
  if (seconds < MIN_PERIOD_SECONDS || HOUR_SECONDS % seconds !== 0) {
    throw new Error(
      `Invalid configuration: AUDIT_DIGEST_PERIOD_SECONDS must be whole seconds from ${MIN_PERIOD_SECONDS} to ${HOUR_SECONDS} that divide ${HOUR_SECONDS} (got "${setting}")`,
    );
  }
  return seconds;
}

/** Start (epoch ms) of the period holding `ms`: periods tile time from the epoch, so each hour starts one. */
export function periodStart(ms: number, periodSeconds: number): number {
  const length = periodSeconds * 1000;
  return Math.floor(ms / length) * length;
}

/**
 * When the digest of the period starting at `startMs` is due: a third of a period after its end (20 minutes after
 * the hour), which leaves time for entries written late in the period to be readable. Rounded up to the
 * millisecond, so a run is never early for a period whose third is not whole.
 */
export function periodDueAt(startMs: number, periodSeconds: number): number {
  return startMs + periodSeconds * 1000 + Math.ceil((periodSeconds * 1000) / 3);
}

/** Periods one `periodsToDigest` answers at most, so a run that catches up a long gap stays short; the next run goes on. */
export const MAX_PERIODS_PER_RUN = 240;

/**
 * The starts (ISO) of the periods a run should make digests for, oldest first: every period after the one of the
 * workspace's last digest (`lastHourStart`; null when it has none, and then from the period of `firstEntryAt`, the
 * workspace's first entry) whose digest is due at `now`, at most `limit`. A period with no entries gets no digest:
 * the caller skips it, and the chain goes from the digest before it to the one after.
 */
export function periodsToDigest(input: {
  lastHourStart: string | null;
  firstEntryAt: number;
  now: number;
  periodSeconds: number;
  limit?: number;
}): string[] {
  const { periodSeconds, now, limit = MAX_PERIODS_PER_RUN } = input;
  const step = periodSeconds * 1000;
  let start =
    input.lastHourStart === null
      ? periodStart(input.firstEntryAt, periodSeconds)
      : periodStart(Date.parse(input.lastHourStart), periodSeconds) + step;
  const starts: string[] = [];
  for (; starts.length < limit && periodDueAt(start, periodSeconds) <= now; start += step) starts.push(new Date(start).toISOString());
  return starts;
}
