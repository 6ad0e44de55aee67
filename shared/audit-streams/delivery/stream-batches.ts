import type { AuditEntry } from '../../audit/index.ts';
import type { AuditStreamType } from '../stream-records.ts';
import { BODY_SHAPES } from './stream-formats.ts';

/**
 * Audit entries cut into the batches a stream delivers (decisions.md v1.4: at most 500 entries or 1 MB a batch),
 * each batch's size measured on the body its type sends, not estimated.
 */

/** The most entries one batch holds (Datadog's intake takes 1000 a request). */
export const MAX_BATCH_ENTRIES = 500;

/**
 * The most bytes of body one batch sends: 1 MB read as 1,000,000 bytes (UTF-8), the smaller reading, within
 * Datadog's 5 MB a request and Splunk Cloud's default limits.
 */
export const MAX_BATCH_BYTES = 1_000_000;

/** One request's worth of entries, in the order given, and the exact size of the body it makes. */
export interface StreamBatch {
  entries: AuditEntry[];
  bytes: number;
}

/**
 * `entries` in order, cut into batches of at most MAX_BATCH_ENTRIES entries and MAX_BATCH_BYTES bytes of the body a
 * `type` stream sends for them. An entry whose body alone passes MAX_BATCH_BYTES still goes, as a batch of its own
 * (its `bytes` then tell so): delivery is at least once, and a stored entry (a DynamoDB item holds at most 400 KB)
 * never comes near that size anyway.
 */
export function streamBatches(type: AuditStreamType, entries: readonly AuditEntry[]): StreamBatch[] {
  const shape = BODY_SHAPES[type];
  const frame = byteLength(shape.open) + byteLength(shape.close);
  const separator = byteLength(shape.separator);
  const batches: StreamBatch[] = [];
  let current: StreamBatch | undefined;
  for (const entry of entries) {
    const piece = byteLength(shape.piece(entry));
    if (current && current.entries.length < MAX_BATCH_ENTRIES && current.bytes + separator + piece <= MAX_BATCH_BYTES) {
      current.entries.push(entry);
      current.bytes += separator + piece;
      continue;
    }
    current = { entries: [entry], bytes: frame + piece };
    batches.push(current);
  }
  return batches;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
