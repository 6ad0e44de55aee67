import { describe, expect, it } from 'vitest';
import { iso } from '../../../shared/platform/clock.ts';
import { makePurgeService, PURGE_GRACE_MS, type PurgeServiceDeps } from '../../../shared/secrets/index.ts';
import { fakeClock, T0 } from '../support/fakes.ts';

const WS = 'ws_test';

/** A purger over a list of due purges; `failing` names secrets whose purge throws. */
function harness(input: { due?: { workspaceId: string; secretId: string }[]; failing?: string[] }) {
  const asked: string[] = [];
  const purged: string[] = [];
  const store: PurgeServiceDeps['store'] = {
    async pendingPurges(before) {
      asked.push(before);
      return input.due ?? [];
    },
    async purgeSecretVersions(_ws, secretId) {
      if (input.failing?.includes(secretId)) throw new Error('throttled');
      purged.push(secretId);
      return 1;
    },
  };
  return { purger: makePurgeService({ store, clock: fakeClock() }), asked, purged };
}

describe('purge service', () => {
  it("looks only at purges due at least the purger's own grace period ago (5 minutes), not the webhooks'", async () => {
    // Prepare
    const h = harness({});
    // Act
    await h.purger.purgeDue();
    // Assess
    expect(PURGE_GRACE_MS).toBe(5 * 60_000);
    expect(h.asked).toEqual([iso(T0 - PURGE_GRACE_MS)]);
  });

  it('purges every deleted secret it finds due, an interrupted purge among them, and counts them', async () => {
    const h = harness({
      due: [
        { workspaceId: WS, secretId: 'sec_01' },
        { workspaceId: WS, secretId: 'sec_02' },
      ],
    });
    expect(await h.purger.purgeDue()).toEqual({ purged: 2 });
    expect(h.purged).toEqual(['sec_01', 'sec_02']);
  });

  it('purges nothing and answers 0 when nothing is due', async () => {
    const h = harness({});
    expect(await h.purger.purgeDue()).toEqual({ purged: 0 });
    expect(h.purged).toEqual([]);
  });

  it('fails the run when a purge fails, so the error alarm sees it; the record stays for the next run', async () => {
    const h = harness({ due: [{ workspaceId: WS, secretId: 'sec_01' }], failing: ['sec_01'] });
    await expect(h.purger.purgeDue()).rejects.toThrow('throttled');
  });
});
