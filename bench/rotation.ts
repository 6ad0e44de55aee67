import { resolve } from 'node:path';
import { observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { LOCAL_FUNCTION_SCOPE, registerLocalFunction } from '../bin/local/local-functions.ts';
import { ROTATION_FUNCTION } from '../shared/platform/functions.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, PRICES, type OperationCalls } from './prices.ts';

/**
 * What one rotation costs at AWS billing (issue 37), started with "rotate now" (`POST /api/v1/secrets/{id}/rotate`)
 * on the local stack and run by the real runner behind its SQS poller:
 * - without a function: the route, the runner's steps (its SQS messages, reads and writes, the audit entries);
 * - with a function: the same, AWS's four steps invoking a minimal rotation function (the port of AWS's generic
 *   template the integration tests use, test/support/functions/generic-rotation.ts) and every AWS API call that
 *   function makes (each an API Gateway request and an invocation of the AWS API's function, with its reads and
 *   writes).
 * Lambda is billed at each invocation's wall time, rounded up per invocation, as the other pipeline figures are. A
 * stand-in runs in a child Node process that starts afresh each time, which a warm Lambda does not: the function's
 * own duration is billed as the time it waited on the API (its calls' wall time), and the runner's as its wall time
 * less the child's, plus that. A scheduled rotation makes the same calls but one EventBridge Scheduler invocation
 * and its SQS message in place of the route. Not counted: the table stream's fan-out invocation for the new version
 * (as for every write in this bench). `BENCH_ONLY=rotation npm run bench` runs this alone.
 */

const ROTATE_ROUTE = 'POST /api/v1/secrets/{secretId}/rotate';
const RUNNER = 'rotation';
const AWS_ROUTE = 'POST /';
/** Rotations measured (after one unmeasured, so every client is warm). */
const ROTATIONS = 5;
const TEMPLATE = resolve('test/support/functions/generic-rotation.ts');

export interface RotationCost extends OperationCalls {
  /** Invocations per rotation: the runner's, the function's, and the AWS API's that the function's calls made. */
  runnerInvocations: number;
  functionInvocations: number;
  awsApiCalls: number;
  /** Billed ms per rotation (wall time rounded up per invocation; the function's as the module comment says). */
  runnerBilledMs: number;
  functionBilledMs: number;
  awsApiBilledMs: number;
  routeMs: number;
  costPerMillionUsd: number;
  /** The same rotation started by its schedule: a Scheduler invocation and its message in place of the route. */
  scheduledCostPerMillionUsd: number;
}

export interface RotationResults {
  withoutFunction: RotationCost;
  withFunction: RotationCost;
}

/** Waits until `probe` answers true (polling every 25 ms), or throws after `ms`. */
async function until(probe: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

export async function measureRotation(
  stack: { baseUrl: string; apiKey: string; localDir: string },
  recorder: ReturnType<typeof makeCallRecorder>,
): Promise<RotationResults> {
  const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
  const project = await request(api, 'POST', '/api/v1/projects', { name: 'Rotation bench' }, 201);
  const environment = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'prod' }, 201);
  const secretsPath = `/api/v1/environments/${environment.data.id}/secrets`;
  const key = await request(api, 'POST', '/api/v1/access-keys', { name: 'bench-rotation', auth: { type: 'aws_sigv4' } }, 201);
  const fn = await registerLocalFunction(stack.localDir, {
    name: 'bench-generic-rotation',
    handler: TEMPLATE,
    env: { AWS_ACCESS_KEY_ID: key.data.auth.awsAccessKeyId, AWS_SECRET_ACCESS_KEY: key.data.awsSecretAccessKey },
  });

  const secretWith = async (name: string, rotation: Record<string, unknown>) => {
    const id = (await request(api, 'PUT', secretsPath, { key: name, value: 'initial-value' })).data.id as string;
    await request(api, 'PUT', `/api/v1/secrets/${id}/rotation`, { schedule: 'rate(30 days)', ...rotation });
    return id;
  };
  const lastRotatedAt = async (id: string) =>
    (await request(api, 'GET', `/api/v1/secrets/${id}`)).data.rotation?.lastRotatedAt as string | null;
  const routeMs: number[] = [];
  const rotateOnce = async (id: string) => {
    const before = await lastRotatedAt(id);
    const started = performance.now();
    await request(api, 'POST', `/api/v1/secrets/${id}/rotate`, undefined, 202);
    routeMs.push(performance.now() - started);
    await until(async () => (await lastRotatedAt(id)) !== before, 120_000, 'the rotation to succeed');
  };

  const measure = async (id: string): Promise<RotationCost> => {
    await rotateOnce(id);
    routeMs.length = 0;
    const seen: InvocationEvent[] = [];
    const stop = observeInvocations((event) => seen.push(event));
    let calls: OperationCalls;
    try {
      calls = await recorder.measure([ROTATE_ROUTE, RUNNER, AWS_ROUTE], () => rotateOnce(id), 300, ROTATIONS);
    } finally {
      stop();
    }
    const of = (scope: string) => seen.filter((event) => event.scope === scope);
    const billed = (events: InvocationEvent[]) => events.reduce((sum, event) => sum + Math.ceil(event.wallMs), 0) / ROTATIONS;
    const [runner, children, awsCalls] = [of(RUNNER), of(LOCAL_FUNCTION_SCOPE), of(AWS_ROUTE)];
    const childMs = children.reduce((sum, event) => sum + event.wallMs, 0) / ROTATIONS;
    // The function waits on its API calls and does little else: billed as that wait, at least 1 ms an invocation.
    const functionBilledMs = children.length === 0 ? 0 : Math.max(billed(awsCalls), children.length / ROTATIONS);
    const runnerBilledMs = Math.ceil(billed(runner) - childMs + functionBilledMs);
    const perRotation = (events: InvocationEvent[]) => events.length / ROTATIONS;
    // Lambda's SQS event source: a receive and a delete for each message the runner takes.
    const eventSourceRequests = 2 * perRotation(runner);
    const route = Math.ceil(routeMs.reduce((sum, ms) => sum + ms, 0) / routeMs.length);
    const withSqs = { ...calls, sqsBilledRequests: calls.sqsBilledRequests + eventSourceRequests };
    const none = { ...calls, ...zeroCalls };
    // The runner and the AWS API's function at their 512 MB, the rotation function at Lambda's smallest usual 128 MB.
    const shared =
      costPerMillion(none, { lambdaInvocations: perRotation(runner), durationMs: runnerBilledMs, memoryMb: ROTATION_FUNCTION.memoryMb }) +
      costPerMillion(none, { lambdaInvocations: perRotation(children), durationMs: functionBilledMs, memoryMb: 128 }) +
      costPerMillion(none, { lambdaInvocations: perRotation(awsCalls), durationMs: billed(awsCalls) }) +
      perRotation(awsCalls) * PRICES.httpApiRequest * 1e6;
    const own = costPerMillion(withSqs, { lambdaInvocations: 0, durationMs: 0 });
    const viaRoute = costPerMillion(none, { apiBytes: 600, lambdaInvocations: 1, durationMs: route });
    // Scheduled: no route; the Scheduler's invocation sends a 'start' message (priced as the route's), which one more
    // runner invocation takes and runs as the route would have (its reads and writes counted in `calls`).
    const perRunnerInvocation = runner.length === 0 ? 0 : runnerBilledMs / perRotation(runner);
    const viaScheduler =
      PRICES.schedulerInvocation * 1e6 +
      costPerMillion(none, { lambdaInvocations: 1, durationMs: Math.ceil(perRunnerInvocation), memoryMb: ROTATION_FUNCTION.memoryMb }) +
      2 * PRICES.sqsRequest * 1e6;
    return {
      ...withSqs,
      runnerInvocations: perRotation(runner),
      functionInvocations: perRotation(children),
      awsApiCalls: perRotation(awsCalls),
      runnerBilledMs,
      functionBilledMs: round3(functionBilledMs),
      awsApiBilledMs: round3(billed(awsCalls)),
      routeMs: route,
      costPerMillionUsd: round3(own + shared + viaRoute),
      scheduledCostPerMillionUsd: round3(own + shared + viaScheduler),
    };
  };

  const withoutFunction = await measure(await secretWith('GENERATED_PASSWORD', { function: null, generator: { length: 32 } }));
  const withFunction = await measure(await secretWith('DB_PASSWORD', { function: fn.arn }));
  return { withoutFunction, withFunction };
}

const zeroCalls = {
  billedReadUnits: 0,
  billedWriteUnits: 0,
  billedIndexWriteUnits: 0,
  kmsRequests: 0,
  sqsBilledRequests: 0,
  schedulerRequests: 0,
};
const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The bench output's lines for rotation. */
export function rotationTable(results: RotationResults): string {
  const rows = [
    '| rotation | DynamoDB requests, RRU, WRU | KMS | SQS | runner / function / AWS API invocations | billed ms: runner, function, AWS API | per million: rotate now | scheduled |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, r] of Object.entries(results)) {
    rows.push(
      `| ${name} | ${r.dynamodbRequests}, ${r.billedReadUnits}, ${r.billedWriteUnits} | ${r.kmsRequests} | ${r.sqsBilledRequests} | ${r.runnerInvocations} / ${r.functionInvocations} / ${r.awsApiCalls} | ${r.runnerBilledMs}, ${r.functionBilledMs}, ${r.awsApiBilledMs} | $${r.costPerMillionUsd} | $${r.scheduledCostPerMillionUsd} |`,
    );
  }
  return rows.join('\n');
}
