import { createHash } from 'node:crypto';

/**
 * The canonical bytes of audit entries, which a digest hashes and `secrets audit verify` recomputes. An entry is
 * canonical in the shape `GET /api/v1/audit` answers it, so the verifier can hash what the API gives it without
 * knowing how the table stores an entry (a stored item holds more: the account, packed entries). This module,
 * digest-record.ts and digest-verify.ts import nothing of the project but each other, so the CLI in sdk/ (which
 * imports no server code) can take the verifier as it is.
 */

/** The fields of an entry the API answers, and so the only ones a digest covers (audit-answers.ts names the same). */
export const DIGESTED_FIELDS = ['id', 'action', 'actorSub', 'target', 'metadata', 'createdAt'] as const;

/** An audit entry as the API answers it (shared/audit's AuditEntry is one): what a digest covers. */
export interface DigestedEntry {
  id: string;
  action: string;
  actorSub: string;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
}

/**
 * Canonical JSON of a value: object keys sorted at every depth by UTF-16 code units, no whitespace, and otherwise
 * exactly what `JSON.stringify` writes (the API answers with it, so a line reads as the API's answer does: a key
 * whose value is undefined is left out, non-ASCII characters are written as themselves, not escaped). For the values
 * JSON can hold this is RFC 8785 (JCS), whose key order and number form are those of JavaScript.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

/** A copy of `value` whose plain objects list their keys in sorted order (JSON.stringify keeps insertion order). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  // A value with its own JSON form (a Date) is written as that form, as JSON.stringify would.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return sortedKeys((value as { toJSON: () => unknown }).toJSON());
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/**
 * The canonical line of one entry: its answered fields only (a stored `accountId` or packing attribute is never
 * part of it), as canonical JSON. No line break: `canonicalLines` ends each line.
 */
export function canonicalEntryLine(entry: DigestedEntry): string {
  const answered: Record<string, unknown> = {};
  for (const field of DIGESTED_FIELDS) answered[field] = entry[field];
  return canonicalJson(answered);
}

/** Entries in id order (code-unit order, which is time order for the service's ULID-based ids), never in place. */
export function inIdOrder<T extends { id: string }>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The canonical text of a period's entries: one canonical line per entry in id order, each ended by "\n", the last
 * one included (JSON Lines), so the text is byte for byte the period's `.jsonl.gz` file once unzipped, and
 * `sha256sum` of that file gives the digest's `entriesSha256`. The order entries come in does not matter: they are
 * sorted by id first, so a store or API that lists them in another order is not a break.
 */
export function canonicalLines(entries: readonly DigestedEntry[]): string {
  return inIdOrder(entries)
    .map((entry) => `${canonicalEntryLine(entry)}\n`)
    .join('');
}

/** SHA-256 of a text's UTF-8 bytes (or of raw bytes), lowercase hex: the form of every hash a digest holds. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256')
    .update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)
    .digest('hex');
}

/** The `entriesSha256` of a period: SHA-256 hex of its canonical lines. */
export function entriesSha256(entries: readonly DigestedEntry[]): string {
  return sha256Hex(canonicalLines(entries));
}
