import { attributeCalls, observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { makeDocumentClient } from '../shared/platform/clients/dynamodb.ts';
import { systemClock } from '../shared/platform/clock.ts';
import { logger } from '../shared/platform/logger.ts';
import { deliveryIdSpan } from '../shared/webhooks/recovery/recovery-store.ts';
import { newId } from '../shared/platform/ids.ts';
import { composeStores } from '../shared/platform/store/compose.ts';
import { makeCursorKeyLoader } from '../shared/platform/store/cursor-key.ts';
import { makePager } from '../shared/platform/store/pager.ts';
import { makeDeliveryApiStore, makeEndpointReader } from '../shared/webhooks/index.ts';
import { makeRecoveryApiStore } from '../shared/webhooks/operations.ts';
import { makeRecoveryWorkerStore } from '../shared/webhooks/on-first-use.ts';
import { systemAuditEntry } from '../shared/audit/audit-entry.ts';
import { recordLateStats } from '../shared/webhooks/stats/delivery-stats-store.ts';
import { seedThirtyDays } from './delivery-stats.ts';
import type { RecoveryMessage } from '../shared/webhooks/deliveries/delivery-message.ts';
import { makeRecoveryRunner } from '../shared/webhooks/recovery/recovery-runner.ts';
import { putFailedDeliveries } from '../test/support/failed-deliveries.ts';
import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, lambdaDurationMs, PRICES, perUnit, type OperationCalls } from './prices.ts';
import { quantile, round2 } from './stats.ts';

/**
 * What the webhook operations cost (decisions.md, "Webhook operations"), at AWS billing: a test event (the route and
 * the worker's attempt), a recovery of failed deliveries through the local stack (the route, the recovery's steps
 * and every attempt; 300 by default, 1,000 with BENCH_THOROUGH=1), a large recovery (5,000; 10,000 thorough: the route's answer, and the recovery's own steps run in this
 * process with the queue counted, not sent: how long each step takes against the worker's 30 s timeout), and a stats
 * call over 30 days of an endpoint with 10,000 deliveries a day. `BENCH_ONLY=webhook-ops npm run bench` runs this alone.
 */

export interface OperationsStack {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
  dynamodbEndpoint: string;
  tableName: string;
}

const TEST_ROUTE = 'POST /api/v1/webhooks/{id}/test';
const RECOVER_ROUTE = 'POST /api/v1/webhooks/{id}/recover';
const STATS_ROUTE = 'GET /api/v1/webhooks/{id}/stats';
const WORKER = 'delivery-worker';

type Priced = OperationCalls & { costPerMillionUsd: number };

/** Lambda invocations and billed ms (wall time rounded up per invocation) of `scope` while `work` runs. */
async function invocationsOf(scope: string, work: () => Promise<unknown>): Promise<{ invocations: number; billedMs: number }> {
  const seen: InvocationEvent[] = [];
  const stop = observeInvocations((event) => seen.push(event));
  try {
    await work();
  } finally {
    stop();
  }
  const mine = seen.filter((event) => event.scope === scope);
  return { invocations: mine.length, billedMs: mine.reduce((sum, event) => sum + Math.ceil(event.wallMs), 0) };
}

/** Waits until `probe` holds (polling every 10 ms), or throws after `ms`. */
async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function measureWebhookOperations(
  stack: OperationsStack,
  recorder: ReturnType<typeof makeCallRecorder>,
  /** Failed deliveries the recovery through the stack runs (bench/effort.ts: 300 by default, 1,000 thorough). */
  recovered: number,
  /** Failed deliveries of the large recovery: the route's count and the steps run here (5,000 by default, 10,000 thorough). */
  large: number,
) {
  const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
  const doc = makeDocumentClient({ endpoint: stack.dynamodbEndpoint });
  const receiver = await startHttpsReceiver({ status: 204 });
  const endpoint = async (path: string) =>
    (await request(api, 'POST', '/api/v1/webhooks', { url: `${receiver.origin}${path}`, events: ['service.secret.delete'] }, 201)).data
      .id as string;
  try {
    // A test event: the route, then the worker's attempt; warm.
    const pinged = await endpoint('/ping');
    const ping = async () => {
      const before = receiver.requests.length;
      const answer = await request(api, 'POST', `/api/v1/webhooks/${pinged}/test`, undefined, 202);
      await until(() => receiver.requests.length > before, 20_000, 'the test event');
      return answer;
    };
    await ping();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const testCalls = await recorder.measure([TEST_ROUTE, WORKER], ping, 500);
    const routeMs: number[] = [];
    let workerShare = { invocations: 0, billedMs: 0 };
    const samples = 20;
    workerShare = await invocationsOf(WORKER, async () => {
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await request(api, 'POST', `/api/v1/webhooks/${pinged}/test`, undefined, 202);
        routeMs.push(performance.now() - started);
      }
      await until(() => receiver.requests.length >= 2 + samples, 20_000, 'the test events');
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    const testRouteMs = lambdaDurationMs(quantile(routeMs, 0.5) ?? 20, null);
    const testEvent: Priced & { routeP50Ms: number | null } = {
      ...testCalls,
      routeP50Ms: round2(quantile(routeMs, 0.5)),
      costPerMillionUsd: costPerMillion(testCalls, {
        apiBytes: 1200,
        lambdaInvocations: 1 + workerShare.invocations / samples,
        durationMs: testRouteMs + workerShare.billedMs / samples,
      }),
    };

    // A recovery of `recovered` failed deliveries through the stack: the route, its steps (100 a page) and every attempt.
    const recoveredEndpoint = await endpoint('/recover');
    await putFailedDeliveries(doc, stack.tableName, stack.workspaceId, recoveredEndpoint, recovered, Date.now() - 3_600_000);
    const since = new Date(Date.now() - 2 * 3_600_000).toISOString();
    let answerMs = 0;
    const before = receiver.requests.length;
    let recoveryCalls: OperationCalls | undefined;
    const workerRun = await invocationsOf(WORKER, async () => {
      recoveryCalls = await recorder.measure(
        [RECOVER_ROUTE, WORKER],
        async () => {
          const started = performance.now();
          const answer = await request(api, 'POST', `/api/v1/webhooks/${recoveredEndpoint}/recover`, { since }, 202);
          answerMs = performance.now() - started;
          if (answer.data.queued !== recovered) throw new Error(`bench: recovery queued ${answer.data.queued}`);
          await until(() => receiver.requests.length >= before + recovered, 300_000, 'the recovered deliveries');
        },
        1500,
      );
    });
    const perRecovered = perUnit(recoveryCalls!, recovered);
    const sqsEventSource = (2 * workerRun.invocations) / recovered;
    const recovery = {
      deliveries: recovered,
      answerMs: round2(answerMs),
      perRecoveredDelivery: {
        ...perRecovered,
        workerInvocations: round2(workerRun.invocations / recovered),
        workerBilledMs: round2(workerRun.billedMs / recovered),
        costPerMillionUsd: costPerMillion(
          { ...perRecovered, sqsBilledRequests: perRecovered.sqsBilledRequests + sqsEventSource },
          { lambdaInvocations: workerRun.invocations / recovered, durationMs: workerRun.billedMs / recovered },
        ),
      },
    };

    // `large` (10,000 thorough): the route's answer (then the endpoint is deleted with its deliveries, which stops the
    // stack's worker from running that recovery), and a recovery of as many more run by this process, its queue counted, not sent:
    // its steps and their length, and its own work per delivery (the attempts are ordinary deliveries, priced above).
    const db = { doc, tableName: stack.tableName };
    const store = composeStores(
      makeDeliveryApiStore(db, makePager(db, makeCursorKeyLoader(db))),
      makeRecoveryApiStore(db),
      makeRecoveryWorkerStore(db),
      makeEndpointReader(db),
    );
    const answered = await endpoint('/recover-large');
    await putFailedDeliveries(doc, stack.tableName, stack.workspaceId, answered, large, Date.now() - 3_600_000);
    let largeAnswerMs = 0;
    let largeQueued = 0;
    const largeRoute = await recorder.measure([RECOVER_ROUTE], async () => {
      const started = performance.now();
      largeQueued = (await request(api, 'POST', `/api/v1/webhooks/${answered}/recover`, { since }, 202)).data.queued;
      largeAnswerMs = performance.now() - started;
    });
    // The stack's worker has started that recovery: its deliveries go (here, not through the API, whose 10 s would not
    // delete them all), which leaves its steps nothing to move, then the endpoint.
    await store.deleteEndpointDeliveries(stack.workspaceId, answered);
    await request(api, 'DELETE', `/api/v1/webhooks/${answered}`);
    const ran = await endpoint('/recover-large-run');
    await putFailedDeliveries(doc, stack.tableName, stack.workspaceId, ran, large, Date.now() - 3_600_000);
    const recoveryId = newId('audit');
    const span = deliveryIdSpan(Date.parse(since), Date.now());
    const at = new Date().toISOString();
    await store.startRecovery(
      stack.workspaceId,
      {
        id: recoveryId,
        endpointId: ran,
        ...span,
        since,
        until: at,
        expected: large,
        queued: 0,
        cursor: null,
        step: 0,
        status: 'running',
        createdAt: at,
        updatedAt: at,
      },
      systemAuditEntry('acc_bench', 'webhook_endpoint.recover', ran, {}, Date.now()),
    );
    const steps: { ms: number; outcome: string }[] = [];
    let queued = 0;
    const next: RecoveryMessage[] = [{ workspaceId: stack.workspaceId, recoveryId, step: 0 }];
    const run = makeRecoveryRunner({
      store,
      uncountFailed: (ws, ep, createdAt, count) =>
        recordLateStats({ doc, tableName: stack.tableName }, ws, ep, createdAt, { failed: -count }),
      enqueueAll: async (messages) => ((queued += messages.length), []),
      continueRecovery: async (message) => void next.push(message),
      clock: systemClock,
      metrics: { recovered: () => undefined },
      log: logger,
    });
    // Recorded as `recovery-runner`: the calls of this process's runner, apart from the stack's functions.
    const runnerCalls = await recorder.measure(['recovery-runner'], () =>
      attributeCalls('recovery-runner', async () => {
        for (let message = next.shift(); message; message = next.shift()) {
          const started = performance.now();
          steps.push({ outcome: await run(message), ms: Math.round(performance.now() - started) });
        }
      }),
    );
    // The runner's deliveries are pending and due on the sweeper's index: they go before the endpoint.
    await store.deleteEndpointDeliveries(stack.workspaceId, ran);
    await request(api, 'DELETE', `/api/v1/webhooks/${ran}`);
    const largeRecovery = {
      deliveries: large,
      answerMs: round2(largeAnswerMs),
      queuedAnswered: largeQueued,
      route: {
        ...largeRoute,
        costPerMillionUsd: costPerMillion(largeRoute, {
          apiBytes: 600,
          lambdaInvocations: 1,
          durationMs: lambdaDurationMs(largeAnswerMs, null),
        }),
      },
      queued,
      steps: steps.length,
      longestStepMs: Math.max(0, ...steps.map((s) => s.ms)),
      outcomes: [...new Set(steps.map((s) => s.outcome))],
      perRecoveredDeliveryBeforeItsAttempt: perUnit(runnerCalls, Math.max(1, queued)),
    };

    // Stats over 30 days of an endpoint with 10,000 deliveries a day, at their worst (bench/delivery-stats.ts).
    const statsEndpoint = await endpoint('/stats');
    const statsSince = await seedThirtyDays(stack.workspaceId, statsEndpoint, Date.now());
    const statsPath = `/api/v1/webhooks/${statsEndpoint}/stats?since=${encodeURIComponent(new Date(statsSince).toISOString())}`;
    const expected = (await request(api, 'GET', statsPath)).data.deliveries;
    const statsCalls = await recorder.measure([STATS_ROUTE], () => request(api, 'GET', statsPath));
    const stats30d = {
      ...statsCalls,
      deliveriesCounted: expected,
      costPerMillionUsd: costPerMillion(statsCalls, { apiBytes: 600, lambdaInvocations: 1, durationMs: 20 }),
    };

    return { note: NOTE, testEvent, recovery, largeRecovery, stats30d, prices: PRICES.date };
  } finally {
    await receiver.close();
  }
}

const NOTE =
  "test event: the route and the worker's attempt, warm; recovery (300 failed deliveries, 1,000 with BENCH_THOROUGH=1): the route, the recovery's steps and every attempt, per recovered delivery; large recovery (5,000 failed deliveries, 10,000 with BENCH_THOROUGH=1): the route's answer, and the recovery's steps run in the bench process (queue counted, not sent): steps, the longest against the worker's 30 s timeout, and its own DynamoDB work per delivery (add 0.1 SendMessageBatch and the attempt); stats: a call over 30 days of an endpoint with 10,000 deliveries a day, at its worst (a whole bucket counted one by one at each end)";

export type WebhookOperationResults = Awaited<ReturnType<typeof measureWebhookOperations>>;

/** The printed lines. */
export function webhookOperationsTable(r: WebhookOperationResults): string {
  const row = (name: string, c: OperationCalls & { costPerMillionUsd?: number }, extra = '') =>
    `| ${name} | ${c.dynamodbRequests} | ${(c.operations ?? []).join(', ')} | ${c.billedReadUnits} | ${c.billedWriteUnits} | ${c.sqsBilledRequests} | ${c.costPerMillionUsd ?? ''} | ${extra} |`;
  return [
    `webhook operations: ${r.note}`,
    '| operation | DynamoDB req | operations | billed RRU | billed WRU | SQS | $ per million | notes |',
    '|---|---|---|---|---|---|---|---|',
    row('test event (route + attempt)', r.testEvent, `route p50 ${r.testEvent.routeP50Ms} ms`),
    row(
      `recovered delivery, of ${r.recovery.deliveries} (route share + steps + attempt)`,
      r.recovery.perRecoveredDelivery,
      `answer ${r.recovery.answerMs} ms`,
    ),
    row(
      `recover route, ${r.largeRecovery.deliveries} failed`,
      r.largeRecovery.route,
      `answer ${r.largeRecovery.answerMs} ms, queued ${r.largeRecovery.queuedAnswered}`,
    ),
    row(
      `recovery steps per delivery, of ${r.largeRecovery.deliveries} (before its attempt; add 0.1 SendMessageBatch)`,
      r.largeRecovery.perRecoveredDeliveryBeforeItsAttempt,
      `${r.largeRecovery.queued} queued in ${r.largeRecovery.steps} steps, longest ${r.largeRecovery.longestStepMs} ms`,
    ),
    row('stats, 30 days', r.stats30d, `${r.stats30d.deliveriesCounted} deliveries counted`),
  ].join('\n');
}
