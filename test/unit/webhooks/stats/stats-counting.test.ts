import { describe, expect, it } from 'vitest';
import { addUp, countDelivery, emptyBucket } from '../../../../shared/webhooks/stats/stats-counting.ts';
import { durationBin } from '../../../../shared/webhooks/stats/stats-histogram.ts';

const attempt = (at: string, durationMs: number, error: string | null) => ({ attempt: 1, at, statusCode: null, durationMs, error });
/** A delivery that failed its first attempt and succeeded its second, after its bucket's cutoff. */
const retried = {
  endpointId: 'we_01',
  status: 'success',
  attemptLog: [attempt('2026-11-26T09:41:08.000Z', 30, 'HTTP 500'), attempt('2026-11-26T09:46:08.000Z', 700, null)],
  rollupStatus: 'pending',
  rollupAttempts: 1,
};

describe('counting deliveries into statistics', () => {
  it('counts a delivery as it stands now: its status and every attempt', () => {
    // Act
    const totals = emptyBucket('now');
    countDelivery(totals, retried, false);
    // Assess
    expect(totals).toMatchObject({ hour: 'now', created: 1, succeeded: 1, failed: 0, lastSuccessAt: '2026-11-26T09:46:08.000Z' });
    expect(totals.durations[durationBin(30)]! + totals.durations[durationBin(700)]!).toBe(2);
  });

  it("counts it as it stood at its bucket's cutoff, as its first late change left it, for the rollup", () => {
    // Act
    const totals = emptyBucket('bucket');
    countDelivery(totals, retried, true);
    // Assess: pending then, with one attempt made (the failed one)
    expect(totals).toMatchObject({ created: 1, succeeded: 0, failed: 0, lastSuccessAt: null, lastFailureAt: '2026-11-26T09:41:08.000Z' });
    expect(totals.durations.reduce((sum, n) => sum + n, 0)).toBe(1);
  });

  it('leaves out of the rollup a delivery created after its bucket was over (counted as a late change instead)', () => {
    const totals = emptyBucket('bucket');
    countDelivery(totals, { endpointId: 'we_01', status: 'pending', rollupStatus: 'none', rollupAttempts: 0 }, true);
    expect(totals.created).toBe(0);
  });

  it('adds spans up: counts, bins, and the later of each last time', () => {
    // Prepare
    const a = { ...emptyBucket('a'), created: 2, failed: 1, lastFailureAt: '2026-11-26T09:00:00.000Z' };
    const b = { ...emptyBucket('b'), created: 3, succeeded: 2, lastFailureAt: '2026-11-26T10:00:00.000Z' };
    b.durations[4] = 2;
    // Act
    addUp(a, b);
    // Assess
    expect(a).toMatchObject({ hour: 'a', created: 5, succeeded: 2, failed: 1, lastFailureAt: '2026-11-26T10:00:00.000Z' });
    expect(a.durations[4]).toBe(2);
  });
});
