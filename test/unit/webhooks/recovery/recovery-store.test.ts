import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { deliveryIdSpan, slicesOf } from '../../../../shared/webhooks/recovery/recovery-store.ts';

/** A recovery counts its span in time slices side by side: together they must hold every id of the span exactly once. */
describe('the time slices of a recovery span', () => {
  const T0 = Date.parse('2026-11-26T00:00:00Z');

  it('cover the span without a gap or an overlap, whatever its length', () => {
    for (const lengthMs of [0, 1, 7, 8, 9, 1000, 3_600_000, 14 * 86_400_000]) {
      const { fromId, toId } = deliveryIdSpan(T0, T0 + lengthMs);
      const slices = slicesOf(fromId, toId, 8);
      expect(slices.length).toBeLessThanOrEqual(8);
      expect(slices[0]![0]).toBe(fromId);
      expect(slices.at(-1)![1]).toBe(toId);
      for (const [lo, hi] of slices) expect(lo <= hi).toBe(true);
      for (let i = 1; i < slices.length; i++) expect(slices[i - 1]![1] < slices[i]![0]).toBe(true);
      // Every id of every millisecond of the span falls in exactly one slice.
      for (let n = 0; n < 200; n++) {
        const id = `whd_${ulid(T0 + Math.floor(Math.random() * (lengthMs + 1)))}`;
        expect(slices.filter(([lo, hi]) => lo <= id && id <= hi)).toHaveLength(1);
      }
    }
  });

  it("keep exact ids as the span's ends (the first and the last failed delivery, not a whole millisecond)", () => {
    const first = `whd_${ulid(T0)}`;
    const last = `whd_${ulid(T0 + 5000)}`;
    const slices = slicesOf(first, last, 8);
    expect(slices[0]![0]).toBe(first);
    expect(slices.at(-1)![1]).toBe(last);
  });
});
