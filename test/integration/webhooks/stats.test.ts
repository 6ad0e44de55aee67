import type { DeliveryStats } from '../../../shared/webhooks/stats/delivery-stats-service.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../../../shared/platform/clock.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { binRange, DURATION_BINS, durationBin, percentileOf } from '../../../shared/webhooks/stats/stats-histogram.ts';
import { logger } from '../../../shared/platform/logger.ts';
import { statsHour, statsKeysOfEndpoint } from '../../../shared/webhooks/stats/delivery-stats-store.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { makeStatsRollup } from '../../../shared/webhooks/stats/stats-rollup.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { deliveriesOf, registerEndpoint, startReceiver, storedDelivery, waitFor } from '../../support/webhooks.ts';

/**
 * `GET /api/v1/webhooks/{id}/stats` over the local stack: the statistics agree with the deliveries the log lists,
 * through successes, final failures, a manual retry, a delivery seen twice and a delete.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

type Stats = DeliveryStats;

const statsOf = (token: string, endpointId: string, query = '') => call('GET', `/api/v1/webhooks/${endpointId}/stats${query}`, { token });

/** Waits until the endpoint's statistics match `expected` (their writes follow the deliveries' own by a moment). */
async function statsMatching(token: string, endpointId: string, expected: Partial<Stats>): Promise<Stats> {
  return waitFor(
    async () => {
      const stats = (await statsOf(token, endpointId)).body.data as Stats;
      return Object.entries(expected).every(([field, value]) => stats[field as keyof Stats] === value) && stats;
    },
    20_000,
    `statistics ${JSON.stringify(expected)}`,
  );
}

/** A workspace with an endpoint on a receiver that fails every event about a key starting with FAIL_. */
async function setup() {
  const ws = await newWorkspace();
  const { environment } = await newEnvironment(ws.apiKey, { project: 'stats', environment: 'prod' });
  const receiver = await startReceiver();
  receiver.respond((request) => (request.body.includes('"key":"FAIL_') ? { status: 500 } : { status: 200 }));
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.create']);
  const write = (key: string) =>
    call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } });
  return { ws, receiver, endpoint, write };
}

describe('webhook endpoint statistics', () => {
  const receivers: HttpsReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('agree exactly with the deliveries listed, through successes, final failures and a manual retry that succeeds', async () => {
    // Prepare: three events the receiver takes, two it fails six times over
    const { ws, receiver, endpoint, write } = await setup();
    receivers.push(receiver);
    for (const key of ['OK_1', 'FAIL_1', 'OK_2', 'FAIL_2', 'OK_3']) expect((await write(key)).status).toBe(200);
    const finished = await waitFor(
      async () => {
        const list = await deliveriesOf(ws.apiKey, endpoint.id);
        return list.length === 5 && list.every((d) => d.status !== 'pending') && list;
      },
      45_000,
      'five finished deliveries',
    );
    // Act
    const asked = Date.now();
    const stats = await statsMatching(ws.apiKey, endpoint.id, { succeeded: 3, failed: 2 });
    const answered = Date.now();
    // Assess: the counts are the log's, since 24 hours before the call
    expect(finished.filter((d) => d.status === 'failed').map((d) => d.attempts)).toEqual([6, 6]);
    expect(stats).toMatchObject({ deliveries: 5, succeeded: 3, failed: 2, pending: 0, successRate: 0.6 });
    expect(Date.parse(stats.since)).toBeGreaterThanOrEqual(asked - DAY);
    expect(Date.parse(stats.since)).toBeLessThanOrEqual(answered - DAY);
    // The percentiles are those of the histogram of every attempt's duration in the log (3 + 12 attempts)
    const attempts = finished.flatMap((d) => d.attemptLog);
    expect(attempts).toHaveLength(15);
    const counts = new Array<number>(DURATION_BINS).fill(0);
    for (const a of attempts) counts[durationBin(a.durationMs)]!++;
    expect(stats.p50DurationMs).toBe(Math.round(percentileOf(counts, 0.5)!));
    expect(stats.p95DurationMs).toBe(Math.round(percentileOf(counts, 0.95)!));
    const bins = attempts.map((a) => durationBin(a.durationMs));
    expect(stats.p50DurationMs).toBeGreaterThanOrEqual(binRange(Math.min(...bins)).lower);
    expect(stats.p95DurationMs).toBeLessThanOrEqual(Math.ceil(binRange(Math.max(...bins)).upper));
    // The last success and failure are attempt times (the latest, give or take attempts finishing together)
    const successes = attempts
      .filter((a) => a.error === null)
      .map((a) => a.at)
      .sort();
    const failures = attempts
      .filter((a) => a.error !== null)
      .map((a) => a.at)
      .sort();
    expect(successes).toContain(stats.lastSuccessAt);
    expect(failures).toContain(stats.lastFailureAt);
    expect(Date.parse(successes.at(-1)!) - Date.parse(stats.lastSuccessAt!)).toBeLessThan(2_000);
    expect(Date.parse(failures.at(-1)!) - Date.parse(stats.lastFailureAt!)).toBeLessThan(2_000);

    // A manual retry of a failed delivery leaves `failed` in the same transaction; its success counts as succeeded.
    receiver.respond({ status: 200 });
    const failed = finished.find((d) => d.status === 'failed')!;
    expect((await call('POST', `/api/v1/webhook-deliveries/${failed.id}/retry`, { token: ws.apiKey })).status).toBe(202);
    const during = (await statsOf(ws.apiKey, endpoint.id)).body.data as Stats;
    expect(during).toMatchObject({ deliveries: 5, failed: 1 });
    expect(during.succeeded + during.pending).toBe(4);
    await waitFor(async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.id === failed.id && d.status === 'success'));
    const after = await statsMatching(ws.apiKey, endpoint.id, { succeeded: 4 });
    expect(after).toMatchObject({ deliveries: 5, succeeded: 4, failed: 1, pending: 0, successRate: 0.8 });
  }, 90_000);

  it('count a delivery the fan-out creates twice (a stream record seen again) once, as pending until it finishes', async () => {
    // Prepare: an endpoint, and a delivery to it as the fan-out makes one (no message: nothing sends it)
    const ws = await newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`);
    const createdAt = iso(Date.now());
    const delivery = { ...storedDelivery(endpoint.id, 0), id: newId('delivery'), createdAt, updatedAt: createdAt };
    const { store, doc, tableName } = localStore();
    // Act
    expect(await store.createDelivery(ws.workspaceId, delivery, Date.parse(createdAt))).toBe(true);
    expect(await store.createDelivery(ws.workspaceId, delivery, Date.parse(createdAt))).toBe(true);
    // Assess: one delivery, pending; no attempt, so no rate and no percentiles
    const stats = (await statsOf(ws.apiKey, endpoint.id)).body.data as Stats;
    expect(stats).toMatchObject({
      deliveries: 1,
      succeeded: 0,
      failed: 0,
      pending: 1,
      successRate: null,
      p50DurationMs: null,
      p95DurationMs: null,
      lastSuccessAt: null,
    });
    expect((await deliveriesOf(ws.apiKey, endpoint.id)).map((d) => d.status)).toEqual(['pending']);
    // Rolled up (here at once, by a rollup whose clock is two hours on), its hour's item counts it once, expires two
    // days after the deliveries it counts, and never shows in the workspace's list; the answer stays the same
    const rollUp = makeStatsRollup({
      store,
      continueRollup: async () => undefined,
      clock: { now: () => Date.now() + 2 * 60 * MINUTE },
      log: logger,
    });
    expect(await rollUp({ workspaceId: ws.workspaceId, rollupUntil: Date.now() + 60 * MINUTE })).toBe('rolled');
    const hour = statsHour(createdAt);
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.deliveryStats(ws.workspaceId, endpoint.id, hour) })))
      .Item!;
    expect(item).toMatchObject({ type: 'WebhookDeliveryStats', n: 1, ttl: Date.parse(`${hour}:00:00.000Z`) / 1000 + 32 * 86_400 });
    expect((await statsOf(ws.apiKey, endpoint.id)).body.data).toMatchObject({ deliveries: 1, pending: 1 });
    const listed = (await call('GET', '/api/v1/webhook-deliveries?limit=200', { token: ws.apiKey })).body.data as { id: string }[];
    expect(listed.map((d) => d.id)).toEqual([delivery.id]);

    // Deleting the endpoint removes its statistics (its hour's item and its bucket's) with its deliveries.
    const db = { doc, tableName };
    expect(await statsKeysOfEndpoint(db, ws.workspaceId, endpoint.id)).toHaveLength(2);
    expect((await call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey })).status).toBe(200);
    expect(await statsKeysOfEndpoint(db, ws.workspaceId, endpoint.id)).toEqual([]);
  });

  it('take since from 30 days ago up to now, to the millisecond, and refuse anything else naming since', async () => {
    // Prepare
    const ws = await newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`);
    const at = (ms: number) => `?since=${encodeURIComponent(iso(ms))}`;
    // Act, Assess: 30 days ago, as a client computes it, is taken and counted from that instant
    const thirtyDays = Date.now() - 30 * DAY;
    const oldest = await statsOf(ws.apiKey, endpoint.id, at(thirtyDays));
    expect(oldest.status).toBe(200);
    expect(oldest.body.data).toMatchObject({ since: iso(thirtyDays), deliveries: 0, successRate: null, p50DurationMs: null });
    // A since written with an offset is the same instant, answered in UTC
    const twoHoursAgo = Date.now() - 2 * 60 * MINUTE;
    const withOffset = new Date(twoHoursAgo + 2 * 60 * MINUTE).toISOString().replace('Z', '+02:00');
    expect((await statsOf(ws.apiKey, endpoint.id, `?since=${encodeURIComponent(withOffset)}`)).body.data.since).toBe(iso(twoHoursAgo));
    for (const [query, message] of [
      [at(Date.now() - 30 * DAY - MINUTE), 'since: must be at most 30 days ago'],
      [at(Date.now() + 60 * MINUTE), 'since: must not be in the future'],
      ['?since=yesterday', 'since: must be an ISO 8601 timestamp'],
      ['?since=', 'since: must be an ISO 8601 timestamp'],
    ] as const) {
      const refused = await statsOf(ws.apiKey, endpoint.id, query);
      expect({ query, status: refused.status, code: refused.body.error.code, message: refused.body.error.message }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_ERROR',
        message,
      });
    }
    expect((await statsOf(ws.apiKey, endpoint.id, '?until=2026-01-01T00:00:00Z')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await statsOf(ws.apiKey, endpoint.id)).status).toBe(200);
  });

  it("are another workspace's endpoint NOT_FOUND, and FORBIDDEN to an access key's machine token", async () => {
    // Prepare
    const ws = await newWorkspace();
    const other = await newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`);
    const machine = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'ci' } })).body.data.token as string;
    // Act
    const foreign = await statsOf(other.apiKey, endpoint.id);
    const unknown = await statsOf(ws.apiKey, newId('webhookEndpoint'));
    const forbidden = await statsOf(machine, endpoint.id);
    // Assess
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await statsOf(ws.apiKey, endpoint.id)).status).toBe(200);
  });
});
