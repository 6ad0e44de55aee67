import { describe, expect, it } from 'vitest';
import { claimOf, deliveryView, mayStartAttempt, toStored } from '../../../../shared/webhooks/deliveries/delivery-records.ts';
import { delivery } from '../pipeline-support.ts';

const NOW = Date.parse('2026-11-26T10:00:00.000Z');

describe("a delivery's record and its attempt tokens", () => {
  it('lets only the message carrying its current token start a pending delivery', () => {
    const pending = { status: 'pending' as const, attemptToken: 'tok-1', updatedAt: '2026-11-26T09:59:59.000Z' };
    expect(mayStartAttempt(pending, 'tok-1', NOW)).toBe(true);
    expect(mayStartAttempt(pending, 'tok-0', NOW)).toBe(false);
    expect(mayStartAttempt({ ...pending, status: 'success' }, 'tok-1', NOW)).toBe(false);
    expect(mayStartAttempt({ ...pending, attemptToken: null }, 'tok-1', NOW)).toBe(false);
  });

  it("lets a message take over its own claim once the claim's lease (60 s) ran out, never another message's", () => {
    const claimed = (updatedAt: string) => ({ status: 'pending' as const, attemptToken: claimOf('tok-1', 'r4nd'), updatedAt });
    expect(mayStartAttempt(claimed('2026-11-26T09:58:59.999Z'), 'tok-1', NOW)).toBe(true);
    expect(mayStartAttempt(claimed('2026-11-26T09:59:00.000Z'), 'tok-1', NOW)).toBe(false);
    expect(mayStartAttempt(claimed('2026-11-26T09:00:00.000Z'), 'tok-2', NOW)).toBe(false);
  });

  it('shows the API a delivery without its body, attempt token, retry flag or how it is counted', () => {
    const view = deliveryView({ ...delivery(), manual: true, lateCounted: true });
    for (const hidden of ['body', 'attemptToken', 'manual', 'lateCounted']) expect(view).not.toHaveProperty(hidden);
    expect(view).toMatchObject({ id: 'whd_01', status: 'pending' });
  });

  it('reads an item back: no token is null, a left snapshot means its changes are counted late', () => {
    const item = { ...delivery(), attemptToken: undefined, manual: undefined, rollupStatus: 'failed', PK: 'x' };
    expect(toStored(item)).toMatchObject({ attemptToken: null, manual: false, lateCounted: true, attemptLog: [] });
    expect(toStored(item)).not.toHaveProperty('PK');
    expect(toStored(undefined)).toBeUndefined();
  });
});
