import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../shared/clock.ts';
import { makeStore } from '../../../shared/store/index.ts';
import type { AuditEntry } from '../../../shared/store/audit.ts';
import { caught, T0 } from '../support/fakes.ts';

/**
 * The reveal rate limit lives in one conditional transaction (the audit entry plus a per-credential, per-minute
 * counter). A fake document client plays DynamoDB's part for counters: `ADD` counts, and the update is refused once
 * the count has reached the limit the store put in its condition. Everything computed in TypeScript (which window a
 * reveal falls in, the limit used, the Retry-After) is the store's own.
 */
function fakeTable() {
  const counters = new Map<string, number>();
  let refuseAuditPut = false;
  const doc = {
    async send(command: { input: { TransactItems?: Record<string, any>[] } }) {
      const items = command.input.TransactItems ?? [];
      const reasons = items.map((item) => {
        if (item.Put) return refuseAuditPut ? 'ConditionalCheckFailed' : 'None';
        const { Key, ExpressionAttributeValues: values } = item.Update;
        return (counters.get(`${Key.PK}|${Key.SK}`) ?? 0) < values[':limit'] ? 'None' : 'ConditionalCheckFailed';
      });
      if (reasons.some((code) => code !== 'None')) {
        throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: reasons.map((Code) => ({ Code })) });
      }
      for (const item of items.filter((i) => i.Update)) {
        const key = `${item.Update.Key.PK}|${item.Update.Key.SK}`;
        counters.set(key, (counters.get(key) ?? 0) + item.Update.ExpressionAttributeValues[':one']);
      }
      return {};
    },
  };
  const store = makeStore(doc as unknown as DynamoDBDocumentClient, 'table');
  return { store, counters, refuseAuditPuts: () => void (refuseAuditPut = true) };
}

let auditIds = 0;
const audit = (): AuditEntry => ({ id: `aud_${++auditIds}`, action: 'secret.reveal', actorSub: 'key_a', target: 'sec_01', metadata: {}, createdAt: iso(T0) });

/** Reveals by credential `key_a` (unless named) at `now`, 120 a minute. */
const reveal = (table: ReturnType<typeof fakeTable>, now: number, credentialId = 'key_a') =>
  table.store.recordReveal('ws_test', audit(), { credentialId, perMinute: 120, workspacePerMinute: 1_000_000, now });

describe('reveal rate limit (per credential and minute)', () => {
  it("the 121st reveal in one minute window is RATE_LIMITED with Retry-After to the window's end", async () => {
    // Prepare: T0 is on a minute boundary; 120 reveals in its first 45 seconds.
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table, T0 + n * 375);
    // Act
    const error = await caught(() => reveal(table, T0 + 45_500));
    // Assess: 14.5 s are left in the window, rounded up.
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.headers).toEqual({ 'Retry-After': '15' });
  });

  it('the first reveal of the next minute starts a fresh window', async () => {
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table, T0 + 59_999);
    await expect(reveal(table, T0 + 60_000)).resolves.toBeUndefined();
    // The credential's counters of the two windows (the workspace's own ceiling counters are beside them).
    expect([...table.counters].filter(([key]) => key.includes('key_a')).map(([, count]) => count)).toEqual([120, 1]);
  });

  it("another credential's reveals do not count against this one", async () => {
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table, T0);
    await expect(reveal(table, T0, 'key_b')).resolves.toBeUndefined();
    expect((await caught(() => reveal(table, T0))).code).toBe('RATE_LIMITED');
  });

  it('a refused audit entry is not mistaken for the rate limit', async () => {
    const table = fakeTable();
    table.refuseAuditPuts();
    const error = await caught(() => reveal(table, T0));
    expect(error.name).toBe('TransactionCanceledException');
  });
});
