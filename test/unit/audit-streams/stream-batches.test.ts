import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, streamBatches } from '../../../shared/audit-streams/delivery/stream-batches.ts';
import { streamBody } from '../../../shared/audit-streams/delivery/stream-formats.ts';
import { AUDIT_STREAM_TYPES, type AuditStreamType } from '../../../shared/audit-streams/stream-records.ts';

/** An entry whose metadata holds `pad` ASCII characters, and characters of 2 to 4 UTF-8 bytes (bytes, not code units, count). */
function entry(n: number, pad = 0): AuditEntry {
  return {
    id: `aud_01KBX${String(n).padStart(21, '0')}`,
    action: 'secret.reveal',
    actorSub: 'usr_1',
    target: 'sec_1',
    metadata: { credentialKind: 'user', note: 'café € 🔑', pad: 'x'.repeat(pad) },
    createdAt: '2026-12-07T09:59:58.123Z',
    accountId: 'acc_1',
  };
}

const bytes = (type: AuditStreamType, entries: readonly AuditEntry[]) => Buffer.byteLength(streamBody(type, entries), 'utf8');
const ids = (entries: readonly AuditEntry[]) => entries.map((e) => e.id);

/** Two entries whose body (of `type`) is exactly MAX_BATCH_BYTES plus `over` bytes: each pad character is one byte. */
function twoFilling(type: AuditStreamType, over: number): AuditEntry[] {
  const base = bytes(type, [entry(1), entry(2)]);
  return [entry(1), entry(2, MAX_BATCH_BYTES - base + over)];
}

describe('audit stream batches', () => {
  it.each(AUDIT_STREAM_TYPES)('keeps 500 entries in one batch and puts the 501st in the next, in order (%s)', (type) => {
    // Prepare
    const entries = Array.from({ length: MAX_BATCH_ENTRIES + 1 }, (_, i) => entry(i));

    // Act
    const five = streamBatches(type, entries.slice(0, MAX_BATCH_ENTRIES));
    const more = streamBatches(type, entries);

    // Assess
    expect(MAX_BATCH_ENTRIES).toBe(500);
    expect(five.map((b) => ids(b.entries))).toEqual([ids(entries.slice(0, 500))]);
    expect(more.map((b) => ids(b.entries))).toEqual([ids(entries.slice(0, 500)), [entries[500]!.id]]);
    expect(more.map((b) => b.bytes)).toEqual(more.map((b) => bytes(type, b.entries)));
  });

  it.each(AUDIT_STREAM_TYPES)('keeps a body of exactly 1 MB in one batch, measured as sent (%s)', (type) => {
    // Prepare
    const entries = twoFilling(type, 0);

    // Act
    const batches = streamBatches(type, entries);

    // Assess
    expect(MAX_BATCH_BYTES).toBe(1_000_000);
    expect(batches).toEqual([{ entries, bytes: MAX_BATCH_BYTES }]);
    expect(bytes(type, entries)).toBe(MAX_BATCH_BYTES);
  });

  it.each(AUDIT_STREAM_TYPES)('cuts a body one byte past 1 MB in two, in order, each measured as sent (%s)', (type) => {
    // Prepare
    const entries = twoFilling(type, 1);

    // Act
    const batches = streamBatches(type, entries);

    // Assess
    expect(batches.map((b) => ids(b.entries))).toEqual([[entries[0]!.id], [entries[1]!.id]]);
    expect(batches.map((b) => b.bytes)).toEqual([bytes(type, [entries[0]!]), bytes(type, [entries[1]!])]);
  });

  it.each(AUDIT_STREAM_TYPES)('sends an entry alone over 1 MB as a batch of its own, between its neighbours (%s)', (type) => {
    // Prepare
    const entries = [entry(1), entry(2, MAX_BATCH_BYTES + 10), entry(3), entry(4)];

    // Act
    const batches = streamBatches(type, entries);

    // Assess: its size tells it is over; the entries after it go on in a batch of their own.
    expect(batches.map((b) => ids(b.entries))).toEqual([[entries[0]!.id], [entries[1]!.id], [entries[2]!.id, entries[3]!.id]]);
    expect(batches[1]!.bytes).toBe(bytes(type, [entries[1]!]));
    expect(batches[1]!.bytes).toBeGreaterThan(MAX_BATCH_BYTES);
  });

  it('makes no batch of no entries', () => {
    // Act
    const batches = streamBatches('https', []);

    // Assess
    expect(batches).toEqual([]);
  });
});
