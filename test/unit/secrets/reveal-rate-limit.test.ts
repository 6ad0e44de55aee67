import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../shared/platform/clock.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { makePager } from '../../../shared/platform/store/pager.ts';
import { makeSecretStore } from '../../../shared/secrets/index.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { caught, T0 } from '../support/fakes.ts';

/**
 * The reveal rate limits are counters per window that containers lease reveals from (shared/secrets/reveal-limit-store.ts),
 * and the audit entry is its own PutItem. A fake table plays DynamoDB's part: `ADD #count :n` under the store's
 * condition `#count <= :room` (refused when the count would pass the limit, answering the item that refused), and
 * audit puts. Several stores over one fake table are several containers. Everything computed in TypeScript (which
 * window a reveal falls in, lease sizes, the Retry-After) is the store's own.
 */
function fakeTable() {
  const counters = new Map<string, number>();
  const counterWrites: { key: string; n: number }[] = [];
  const audits: string[] = [];
  let refuseAuditPut = false;
  const doc = {
    async send(command: { input: Record<string, any> }) {
      const input = command.input;
      const key = input.Key && `${input.Key.PK}|${input.Key.SK}`;
      if (input.UpdateExpression) {
        const { ':n': n, ':room': room } = input.ExpressionAttributeValues;
        counterWrites.push({ key, n });
        // As DynamoDB answers with ReturnValuesOnConditionCheckFailure: ALL_OLD, the item that refused (marshalled).
        const count = counters.get(key) ?? 0;
        if (count > room)
          throw Object.assign(new Error('The conditional request failed'), {
            name: 'ConditionalCheckFailedException',
            Item: { count: { N: String(count) } },
          });
        counters.set(key, (counters.get(key) ?? 0) + n);
        return {};
      }
      if (input.Item) {
        if (refuseAuditPut) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
        audits.push(input.Item.id);
        return {};
      }
      throw new Error('the limiter makes no other request');
    },
  };
  // A container's secret store (recordReveal leases through its own limiter), as the functions make it.
  const container = () => {
    const db = { doc: doc as unknown as DynamoDBDocumentClient, tableName: 'table' };
    return makeSecretStore(db, makePager(db, makeCursorKeyLoader(db)));
  };
  return { store: container(), container, counters, counterWrites, audits, refuseAuditPuts: () => void (refuseAuditPut = true) };
}

let auditIds = 0;
const audit = (): AuditEntry => ({
  id: `aud_${++auditIds}`,
  action: 'secret.reveal',
  actorSub: 'key_a',
  target: 'sec_01',
  metadata: {},
  createdAt: iso(T0),
});

type Store = ReturnType<ReturnType<typeof fakeTable>['container']>;

/** Reveals by credential `key_a` (unless named) at `now`, 120 a minute, through one container's store. */
const reveal = (store: Store, now: number, credentialId = 'key_a', workspacePerMinute = 1_000_000) =>
  store.recordReveal('ws_test', audit(), { credentialId, perMinute: 120, workspacePerMinute, now });

/** The credential's counter of the window starting at T0. */
const credentialCount = (table: ReturnType<typeof fakeTable>, credentialId = 'key_a') =>
  [...table.counters].find(([key]) => key.includes(credentialId) && key.endsWith(`REVEAL#${T0 / 60_000}`))?.[1];

describe('reveal rate limit (per credential and minute)', () => {
  it("the 121st reveal in one minute window is RATE_LIMITED with Retry-After to the window's end", async () => {
    // Prepare: T0 is on a minute boundary; 120 reveals in its first 45 seconds.
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table.store, T0 + n * 375);
    // Act
    const error = await caught(() => reveal(table.store, T0 + 45_500));
    // Assess: 14.5 s are left in the window, rounded up; the refused reveal wrote no audit entry.
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.headers).toEqual({ 'Retry-After': '15' });
    expect(table.audits).toHaveLength(120);
    expect(credentialCount(table)).toBe(120);
  });

  it('leases: one container pays one counter write per lease, not per reveal', async () => {
    // Prepare
    const table = fakeTable();
    // Act: 120 reveals in one window
    for (let n = 0; n < 120; n++) await reveal(table.store, T0 + n * 100);
    // Assess: leases of 1, 2, 4, 8, then at most 15 (an eighth of 120): 12 writes of the credential's counter
    const writes = table.counterWrites.filter((write) => write.key.includes('key_a')).map((write) => write.n);
    expect(writes).toEqual([1, 2, 4, 8, 15, 15, 15, 15, 15, 15, 15]);
    expect(writes.reduce((sum, n) => sum + n, 0)).toBe(120);
  });

  it('the first reveal of the next minute starts a fresh window, its first lease sized by the last minute', async () => {
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table.store, T0 + 59_000);
    await expect(reveal(table.store, T0 + 60_000)).resolves.toBeUndefined();
    // The credential's counters of the two windows (the workspace's own ceiling counters are beside them): the new
    // window's first lease is a quarter of the 120 used, capped at 15.
    expect([...table.counters].filter(([key]) => key.includes('key_a')).map(([, count]) => count)).toEqual([120, 15]);
  });

  it('several containers never pass the limit together: the last leases are cut to what is left', async () => {
    // Prepare: three containers of one credential
    const table = fakeTable();
    const containers = [table.container(), table.container(), table.container()];
    // Act: 200 attempts, round robin
    const outcomes: string[] = [];
    for (let n = 0; n < 200; n++) {
      const error = await reveal(containers[n % 3]!, T0 + n).then(
        () => undefined,
        (e: { code?: string }) => e,
      );
      outcomes.push(error ? error.code! : 'ok');
    }
    // Assess: the counter is exactly at the limit, never past it, and no more reveals passed than it counts
    expect(credentialCount(table)).toBe(120);
    expect(outcomes.filter((o) => o === 'ok').length).toBeLessThanOrEqual(120);
    expect(outcomes.filter((o) => o !== 'ok').every((o) => o === 'RATE_LIMITED')).toBe(true);
    expect(table.audits.length).toBe(outcomes.filter((o) => o === 'ok').length);
  });

  it('concurrent reveals in one container never spend more than it leased', async () => {
    const table = fakeTable();
    const settled = await Promise.allSettled(Array.from({ length: 150 }, () => reveal(table.store, T0)));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(120);
    expect(credentialCount(table)).toBe(120);
  });

  it('waves of concurrent reveals in one container lease one at a time: all 120 pass before the first refusal', async () => {
    // Concurrent requests that find the lease empty wait for one refill instead of each leasing its own (which
    // would lease far more than they spend, and refuse the rest of the window early).
    const table = fakeTable();
    const outcomes: string[] = [];
    while (!outcomes.includes('RATE_LIMITED') && outcomes.length < 300) {
      const wave = Array.from({ length: 10 }, () =>
        reveal(table.store, T0).then(
          () => 'ok',
          (e: { code?: string }) => e.code!,
        ),
      );
      outcomes.push(...(await Promise.all(wave)));
    }
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(120);
    expect(credentialCount(table)).toBe(120);
  });

  it("another credential's reveals do not count against this one", async () => {
    const table = fakeTable();
    for (let n = 0; n < 120; n++) await reveal(table.store, T0);
    await expect(reveal(table.store, T0, 'key_b')).resolves.toBeUndefined();
    expect((await caught(() => reveal(table.store, T0))).code).toBe('RATE_LIMITED');
  });

  it('the workspace ceiling refuses when credentials together reach it', async () => {
    const table = fakeTable();
    for (const credential of ['key_a', 'key_b', 'key_c']) await reveal(table.store, T0, credential, 3);
    const error = await caught(() => reveal(table.store, T0, 'key_d', 3));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toBe('reveals: at most 3 per minute for the workspace');
  });

  it('a refused audit entry is not mistaken for the rate limit', async () => {
    const table = fakeTable();
    table.refuseAuditPuts();
    const error = await caught(() => reveal(table.store, T0));
    expect(error.name).toBe('ConditionalCheckFailedException');
  });
});
