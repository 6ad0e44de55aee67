import { BatchWriteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { attributeCalls, observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { makeDocumentClient } from '../shared/platform/clients/dynamodb.ts';
import { systemClock } from '../shared/platform/clock.ts';
import { newId } from '../shared/platform/ids.ts';
import { logger } from '../shared/platform/logger.ts';
import { DURATION_BINS } from '../shared/webhooks/stats/stats-histogram.ts';
import { makeStatsRollupStore } from '../shared/webhooks/stats/stats-rollup-store.ts';
import { bucketStart, hourStart, STATS_BUCKET_MS, type StatsBucket } from '../shared/webhooks/stats/delivery-stats-store.ts';
import { DELIVERY_RETENTION_SECONDS } from '../shared/webhooks/deliveries/delivery-records.ts';
import { ENTITY, gsi3, keys } from '../shared/platform/store/keys.ts';
import { makeStatsRollup } from '../shared/webhooks/stats/stats-rollup.ts';
import type { makeCallRecorder } from './calls.ts';
import { costPerMillion, perUnit, type OperationCalls } from './prices.ts';

/*
 * What the delivery statistics cost off the delivery path (shared/webhooks/stats/delivery-stats-store.ts): the rollup's share of a
 * delivery, and the data a 30-day statistics read meets. Both at the reference endpoint of the issue: 10,000
 * deliveries a day, about 14 in each two-minute bucket.
 */

export const REFERENCE_DELIVERIES_PER_DAY = 10_000;
const HOUR_MS = 3_600_000;
const perBucket = REFERENCE_DELIVERIES_PER_DAY / (86_400_000 / STATS_BUCKET_MS);

/** The local stack's table, which the stack running in this process names in the environment. */
function stackDb(): { doc: DynamoDBDocumentClient; tableName: string } {
  return { doc: makeDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT }), tableName: process.env.TABLE_NAME! };
}

/** A delivery as the pipeline leaves a successful one: a secret's creation event, one attempt, in its endpoint's log. */
export function deliveryItemAt(workspaceId: string, endpointId: string, at: number): Record<string, unknown> {
  const id = `whd_${ulid(at)}`;
  const createdAt = new Date(at).toISOString();
  const eventId = `evt_${id.slice(4)}`;
  const data = {
    secretId: newId('secret'),
    key: 'DELIVERY_10_1_12',
    version: 1,
    projectId: newId('project'),
    environmentId: newId('environment'),
    actorSub: 'key_01JX0000000000000000000000',
  };
  return {
    ...keys.delivery(workspaceId, id),
    ...gsi3.endpointDelivery(endpointId, id),
    type: ENTITY.delivery,
    workspaceId,
    id,
    endpointId,
    eventId,
    eventType: 'service.secret.create',
    status: 'success',
    attempts: 1,
    statusCode: 204,
    lastError: null,
    createdAt,
    updatedAt: new Date(at + 40).toISOString(),
    attemptLog: [{ attempt: 1, at: new Date(at + 20).toISOString(), statusCode: 204, durationMs: 18, error: null }],
    body: JSON.stringify({
      id: eventId,
      type: 'service.secret.create',
      account: 'acc_01JX0000000000000000000000',
      occurredAt: createdAt,
      data,
    }),
    manual: false,
    ttl: Math.floor(at / 1000) + DELIVERY_RETENTION_SECONDS,
  };
}

/** Puts items 25 to a request, eight requests at a time. */
export async function putItems(doc: DynamoDBDocumentClient, tableName: string, items: Record<string, unknown>[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches
        .slice(i, i + 8)
        .map((batch) =>
          doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: batch.map((Item) => ({ PutRequest: { Item } })) } })),
        ),
    );
  }
}

/** `count` deliveries of `endpointId` spread evenly over [from, from + span). */
export const spread = (workspaceId: string, endpointId: string, from: number, span: number, count: number) =>
  Array.from({ length: count }, (_, i) => deliveryItemAt(workspaceId, endpointId, from + Math.floor(((i + 0.5) * span) / count)));

export interface RollupShare {
  deliveries: number;
  jobs: number;
  /** The rollup's requests, per delivery. */
  calls: OperationCalls;
  /** Per delivery: the rollup's own SQS requests (the fan-out's message, the event source's receive and delete), invocations, billed ms. */
  sqsRequests: number;
  invocations: number;
  billedMs: number;
  costPerMillionUsd: number;
}

const shares = new Map<number, Promise<RollupShare>>();

/**
 * The rollup's work per delivery for `endpoints` endpoints of one workspace at the reference rate: an hour of their
 * deliveries (put straight into the table: a synthetic workspace), rolled up one bucket at a time as the worker does
 * it (30 messages, the last one adding the hour up), run in this process as `stats-rollup`. Each message is priced as
 * its own worker invocation with the fan-out's SendMessage and the event source's ReceiveMessage and
 * DeleteMessageBatch. Measured once per number of endpoints.
 */
export function measureRollupShare(recorder: ReturnType<typeof makeCallRecorder>, endpoints: number): Promise<RollupShare> {
  if (!shares.has(endpoints)) shares.set(endpoints, rollupShare(recorder, endpoints));
  return shares.get(endpoints)!;
}

async function rollupShare(recorder: ReturnType<typeof makeCallRecorder>, endpoints: number): Promise<RollupShare> {
  const db = stackDb();
  const workspaceId = newId('workspace');
  const hour = hourStart(Date.now() - 2 * HOUR_MS);
  const perHour = Math.round(REFERENCE_DELIVERIES_PER_DAY / 24);
  const items = Array.from({ length: endpoints }, () => newId('webhookEndpoint')).flatMap((endpointId) =>
    spread(workspaceId, endpointId, hour, HOUR_MS, perHour),
  );
  await putItems(db.doc, db.tableName, items);
  const run = makeStatsRollup({ store: makeStatsRollupStore(db), continueRollup: async () => undefined, clock: systemClock, log: logger });
  const invocations: InvocationEvent[] = [];
  const stop = observeInvocations((event) => event.scope === 'stats-rollup' && invocations.push(event));
  const jobs = HOUR_MS / STATS_BUCKET_MS;
  let calls: OperationCalls;
  try {
    calls = await recorder.measure(['stats-rollup'], async () => {
      for (let end = hour + STATS_BUCKET_MS; end <= hour + HOUR_MS; end += STATS_BUCKET_MS) {
        const outcome = await attributeCalls('stats-rollup', () => run({ workspaceId, rollupUntil: end }));
        if (outcome !== 'rolled') throw new Error(`bench: a rollup answered ${outcome}`);
      }
    });
  } finally {
    stop();
  }
  const deliveries = items.length;
  const share = perUnit(calls, deliveries);
  const sqsRequests = (3 * jobs) / deliveries;
  const billedMs = invocations.reduce((sum, event) => sum + Math.ceil(event.wallMs), 0) / deliveries;
  const costPerMillionUsd = costPerMillion(
    { ...share, sqsBilledRequests: share.sqsBilledRequests + sqsRequests },
    { lambdaInvocations: jobs / deliveries, durationMs: billedMs },
  );
  return {
    deliveries,
    jobs,
    calls: share,
    sqsRequests: round3(sqsRequests),
    invocations: round3(jobs / deliveries),
    billedMs: round3(billedMs),
    costPerMillionUsd,
  };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** An hour's or a bucket's statistics as the rollup writes them for the reference endpoint: every histogram bin used. */
function referenceTotals(created: number, at: number): StatsBucket {
  const durations = Array.from({ length: DURATION_BINS }, (_, bin) =>
    Math.max(1, Math.round(created / DURATION_BINS) + (bin === 3 ? created % DURATION_BINS : 0)),
  );
  const failed = Math.floor(created / 100);
  return {
    hour: '',
    created,
    succeeded: created - failed,
    failed,
    durations,
    lastSuccessAt: new Date(at + 40_000).toISOString(),
    lastFailureAt: new Date(at + 20_000).toISOString(),
  };
}

/**
 * What a statistics read over 30 days meets for one endpoint at the reference rate, at its worst: every hour and
 * bucket item the rollup would have written (every histogram bin used), the watermark as far back as it gets just
 * before a rollup (a bucket and the cutoff and safety margins: 151 s of deliveries past it), and a `since` at the
 * start of a bucket's last 2 minutes (a whole bucket of deliveries counted one by one). Answers that `since`.
 */
export async function seedThirtyDays(workspaceId: string, endpointId: string, now: number): Promise<number> {
  const db = stackDb();
  const store = makeStatsRollupStore(db);
  const since = bucketStart(now - 30 * 86_400_000 + 10 * 60_000) + 1;
  const watermark = bucketStart(now) - STATS_BUCKET_MS;
  const firstHour = hourStart(since) + HOUR_MS;
  const writes: Promise<void>[] = [];
  for (let h = firstHour; h < hourStart(watermark); h += HOUR_MS)
    writes.push(store.writeRollup(workspaceId, endpointId, h, referenceTotals(Math.round(REFERENCE_DELIVERIES_PER_DAY / 24), h), 'hour'));
  const buckets = [...range(bucketStart(since) + STATS_BUCKET_MS, firstHour), ...range(hourStart(watermark), watermark)];
  for (const b of buckets) writes.push(store.writeRollup(workspaceId, endpointId, b, referenceTotals(Math.round(perBucket), b), 'bucket'));
  for (let i = 0; i < writes.length; i += 50) await Promise.all(writes.slice(i, i + 50));
  // Put over whatever the stack's own rollups left (the endpoint is in the bench's workspace, which has deliveries).
  await db.doc.send(
    new PutCommand({
      TableName: db.tableName,
      Item: {
        ...keys.deliveryStatsWatermark(workspaceId),
        type: ENTITY.deliveryStatsWatermark,
        rolledTo: watermark,
        hourEndpoints: new Set([endpointId]),
      },
    }),
  );
  const tail = 151_000;
  const raw = [
    ...spread(workspaceId, endpointId, since, STATS_BUCKET_MS - 1, Math.round(perBucket)),
    ...spread(workspaceId, endpointId, now - tail, tail, Math.round((REFERENCE_DELIVERIES_PER_DAY * tail) / 86_400_000)),
  ];
  await putItems(db.doc, db.tableName, raw);
  return since;
}

/** Bucket starts in [from, to). */
function range(from: number, to: number): number[] {
  const starts: number[] = [];
  for (let b = from; b < to; b += STATS_BUCKET_MS) starts.push(b);
  return starts;
}
