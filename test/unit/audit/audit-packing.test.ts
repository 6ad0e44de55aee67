import { describe, expect, it } from 'vitest';
import { entriesOfItem, itemsOfWrites, PACKED_PER_ITEM, packedFields } from '../../../shared/audit/audit-packing.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';

const NOW = '2026-01-02T03:04:05.678Z';

const entry = (n: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id: `aud_${String(n).padStart(26, '0')}`,
  action: 'secret.reveal',
  actorSub: 'ak_1',
  target: `sec_${n}`,
  metadata: { key: `K${n}`, via: 'sec_0' },
  createdAt: NOW,
  accountId: 'acc_1',
  ...overrides,
});

describe('audit entries packed in one item', () => {
  it('store each packed entry by its id, target and metadata, and list the targets once', () => {
    // Act
    const fields = packedFields([entry(1), entry(2), entry(3, { target: 'sec_1' })]);

    // Assess
    expect(fields).toEqual({
      packed: [
        { id: entry(1).id, target: 'sec_1', metadata: entry(1).metadata },
        { id: entry(2).id, target: 'sec_2', metadata: entry(2).metadata },
        { id: entry(3).id, target: 'sec_1', metadata: entry(3).metadata },
      ],
      packedTargets: ['sec_1', 'sec_2'],
    });
    expect(packedFields([])).toEqual({});
  });

  it('read back as the entries that were written, the item its own first', () => {
    // Prepare
    const own = entry(0, { metadata: { key: 'K0' } });
    const item = { PK: 'WS#1#AUDIT', SK: own.id, workspaceId: 'ws_1', ...own, ...packedFields([entry(1), entry(2)]) };

    // Act
    const entries = entriesOfItem(item);

    // Assess
    const stored = { PK: 'WS#1#AUDIT', SK: own.id, workspaceId: 'ws_1' };
    expect(entries).toEqual([
      { ...stored, ...own },
      { ...stored, ...entry(1) },
      { ...stored, ...entry(2) },
    ]);
    expect(entriesOfItem({ ...own })).toEqual([own]);
  });

  it(`put ${PACKED_PER_ITEM} entries in an item at most, the rest in items of their own`, () => {
    // Prepare
    const packed = Array.from({ length: 2 * PACKED_PER_ITEM + 2 }, (_, i) => entry(i + 1));

    // Act
    const atLimit = itemsOfWrites([{ ...entry(0), packed: packed.slice(0, PACKED_PER_ITEM) }]);
    const past = itemsOfWrites([{ ...entry(0), packed: packed.slice(0, PACKED_PER_ITEM + 1) }]);
    const more = itemsOfWrites([{ ...entry(0), packed }]);

    // Assess
    expect(atLimit).toEqual([{ own: entry(0), packed: packed.slice(0, PACKED_PER_ITEM) }]);
    expect(past).toEqual([
      { own: entry(0), packed: packed.slice(0, PACKED_PER_ITEM) },
      { own: packed[PACKED_PER_ITEM], packed: [] },
    ]);
    expect(more.map((item) => [item.own.id, item.packed.length])).toEqual([
      [entry(0).id, PACKED_PER_ITEM],
      [packed[PACKED_PER_ITEM]!.id, PACKED_PER_ITEM],
      [packed[2 * PACKED_PER_ITEM + 1]!.id, 0],
    ]);
    expect(more.flatMap((item) => [item.own, ...item.packed])).toEqual([entry(0), ...packed]);
  });

  it('keep an entry of another action, actor, time or account in an item of its own; one of the same joins the first item', () => {
    // Prepare
    const others = [
      entry(1, { action: 'secret.delete' }),
      entry(2, { actorSub: 'ak_2' }),
      entry(3, { createdAt: '2026-01-02T03:04:05.679Z' }),
      entry(4, { accountId: 'acc_2' }),
    ];

    // Act
    const items = itemsOfWrites([{ ...entry(0), packed: [entry(5), ...others] }, entry(6)]);

    // Assess
    expect(items).toEqual([{ own: entry(0), packed: [entry(5), entry(6)] }, ...others.map((other) => ({ own: other, packed: [] }))]);
  });

  it("pack the entries of several writes (an environment load's page: 30 reveals at one instant) in one item", () => {
    // Prepare: 30 reveals, the second with a target revealed through its references
    const writes = Array.from({ length: 30 }, (_, i) => ({ ...entry(i), ...(i === 1 && { packed: [entry(100)] }) }));

    // Act
    const items = itemsOfWrites(writes);

    // Assess
    expect(items).toHaveLength(1);
    expect([items[0]!.own, ...items[0]!.packed]).toEqual([entry(0), entry(1), entry(100), ...writes.slice(2)]);
  });
});
