import { observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { SYNC_WORKER_FUNCTION } from '../shared/platform/functions.ts';
import { startGithubStandIn } from '../test/support/github-stand-in.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, PRICES, type OperationCalls } from './prices.ts';

/**
 * What one sync push costs at AWS billing (issue 50), on the local stack: a write to a key of an environment with one
 * GitHub Actions sync (to the GitHub stand-in, test/support/github-stand-in.ts, which opens every sealed box), carried
 * by the table stream's fan-out to the sync queue and pushed by the real sync worker behind its SQS poller. Counted
 * per push: the worker's invocation (wall time, rounded up) and its reads, writes, KMS and SQS requests (Lambda's event
 * source: a receive and a delete per message), and the fan-out's part: the Query of the workspace's syncs and the
 * SendMessage of the push (the fan-out's invocation itself is shared with the webhooks, and not counted, as for every
 * write in this bench). GitHub's side is free. A write to an environment without syncs adds only that Query to its
 * fan-out batch (0.5 read units, eventually consistent). `BENCH_ONLY=syncs npm run bench` runs this alone.
 */

const WORKER = 'sync-worker';
/** Pushes measured (after one unmeasured, so every client and data key is warm). */
const PUSHES = 10;
const TOKEN = 'ghp_BenchToken0123456789abcdefABCDEF';

export interface SyncPushCost extends OperationCalls {
  workerInvocations: number;
  workerBilledMs: number;
  costPerMillionPushesUsd: number;
}

/** Waits until `probe` answers true (polling every 25 ms), or throws after `ms`. */
async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

export async function measureSyncPush(api: Api, recorder: ReturnType<typeof makeCallRecorder>): Promise<SyncPushCost> {
  const github = await startGithubStandIn({ token: TOKEN });
  try {
    const project = await request(api, 'POST', '/api/v1/projects', { name: 'Sync bench' }, 201);
    const environment = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'prod' }, 201);
    const secretsPath = `/api/v1/environments/${environment.data.id}/secrets`;
    await request(api, 'PUT', secretsPath, { key: 'API_TOKEN', value: 'value-0' });
    const destination = { type: 'github-actions', repository: 'bench/app', token: TOKEN, apiUrl: github.apiUrl };
    await request(api, 'POST', '/api/v1/syncs', { environmentId: environment.data.id, destination }, 201);
    await until(() => github.secret('bench/app', 'API_TOKEN') === 'value-0', 60_000, 'the first push');
    let n = 0;
    const pushOnce = async () => {
      const value = `value-${++n}`;
      await request(api, 'PUT', secretsPath, { key: 'API_TOKEN', value });
      await until(() => github.secret('bench/app', 'API_TOKEN') === value, 60_000, 'a push');
    };
    await pushOnce();
    const seen: InvocationEvent[] = [];
    const stop = observeInvocations((event) => seen.push(event));
    let calls: OperationCalls;
    try {
      calls = await recorder.measure([WORKER], pushOnce, 300, PUSHES);
    } finally {
      stop();
    }
    // The fan-out's share: the syncs Query and the push's SendMessage (its delivery work is the webhooks').
    const fanout = { ...zeroCalls, dynamodbRequests: 1, billedReadUnits: 0.5, sqsRequests: 1, sqsBilledRequests: 1 };
    const worker = seen.filter((event) => event.scope === WORKER);
    const invocations = worker.length / PUSHES;
    const billedMs = Math.ceil(worker.reduce((sum, event) => sum + Math.ceil(event.wallMs), 0) / PUSHES);
    // Lambda's SQS event source: a receive and a delete for each message the worker takes.
    const withSqs = { ...calls, sqsBilledRequests: calls.sqsBilledRequests + 2 * invocations + fanout.sqsBilledRequests };
    const cost =
      costPerMillion(withSqs, { lambdaInvocations: invocations, durationMs: billedMs, memoryMb: SYNC_WORKER_FUNCTION.memoryMb }) +
      fanout.billedReadUnits * PRICES.dynamoReadUnit * 1e6;
    return {
      ...withSqs,
      dynamodbRequests: calls.dynamodbRequests + fanout.dynamodbRequests,
      billedReadUnits: calls.billedReadUnits + fanout.billedReadUnits,
      workerInvocations: invocations,
      workerBilledMs: billedMs,
      costPerMillionPushesUsd: Math.round(cost * 1000) / 1000,
    };
  } finally {
    await github.close();
  }
}

const zeroCalls: OperationCalls = {
  dynamodbRequests: 0,
  readUnits: 0,
  writeUnits: 0,
  billedReadUnits: 0,
  billedWriteUnits: 0,
  billedIndexWriteUnits: 0,
  kmsRequests: 0,
  sqsRequests: 0,
  sqsBilledRequests: 0,
  schedulerRequests: 0,
};

/** The bench output's line for syncs. */
export function syncsTable(push: SyncPushCost): string {
  return [
    '| sync push | DynamoDB requests, RRU, WRU | KMS | SQS | worker invocations, billed ms | per million pushes |',
    '|---|---|---|---|---|---|',
    `| one changed key, GitHub Actions | ${push.dynamodbRequests}, ${push.billedReadUnits}, ${push.billedWriteUnits} | ${push.kmsRequests} | ${push.sqsBilledRequests} | ${push.workerInvocations}, ${push.workerBilledMs} | $${push.costPerMillionPushesUsd} |`,
  ].join('\n');
}
