import './log-level.ts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { bundleTable, measureBundles } from './bundles.ts';
import { measureCpu, type CpuResults } from './cpu.ts';
import { benchEffort } from './effort.ts';
import { measureMandatedFloor } from './mandated.ts';
import { makeAwsInspector, makeCallRecorder } from './calls.ts';
import type { Api } from './load.ts';
import { countCalls, measureLoad, operationsTable, prepare, priceOperations } from './operations.ts';
import { PRICES, type OperationCalls } from './prices.ts';
import { measureScope, scopeTable, type ScopeResults } from './scope.ts';
import { loginTable, measureLogin, type LoginResults } from './login.ts';
import { measureWebhookOperations, webhookOperationsTable, type WebhookOperationResults } from './webhook-operations.ts';
import { measureRotation, type RotationResults, rotationTable } from './rotation.ts';
import { measureSyncPush, type SyncPushCost, syncsTable } from './syncs.ts';
import { type AuditStreamsCost, auditStreamsTable, type DigestsCost, measureAuditStreams } from './audit-streams.ts';
import { round2 } from './stats.ts';
import { measureDelivery, measureWebhooks, priceDelivery, removeEndpoints } from './webhooks.ts';
import { priceWorkload, workloadTable } from './workload.ts';

/**
 * `npm run bench`: bundles, AWS calls and cost per operation, latency and throughput on the local stack, and the
 * webhook pipeline, in one table; results go to bench/results.json (or BENCH_OUT). Timings never fail anything:
 * the deterministic budgets (request counts, bundle sizes) are asserted by the tests. The default run takes the samples
 * the budgets need (bench/effort.ts: 31 import pairs a function against its floor, 3 of the side ratios, the CPU
 * bench's 4 rounds of 200 requests, recoveries of 300 and 5,000 deliveries, 1.5 s load tests); `BENCH_THOROUGH=1`
 * takes the longer measurement of before (31 pairs of every ratio, 3 rounds of 500 requests, 1,000 and 10,000, 3 s). Each phase prints its wall time when the next starts. `BENCH_ONLY=scope` runs only
 * what access keys' permissions cost (bench/scope.ts), `BENCH_ONLY=login` what a workload-identity login costs
 * (bench/login.ts), `BENCH_ONLY=webhook-ops` what test events, recoveries and statistics cost (bench/webhook-operations.ts),
 * `BENCH_ONLY=delivery` what a webhook delivery costs at 10 endpoints an event and at one (bench/webhooks.ts),
 * `BENCH_ONLY=rotation` what one rotation costs with and without a function (bench/rotation.ts), `BENCH_ONLY=syncs`
 * what one sync push costs (bench/syncs.ts), `BENCH_ONLY=audit-streams` what audit streams and digests cost
 * (bench/audit-streams.ts), `BENCH_ONLY=calls` every operation's calls, latency and price without the
 * CPU measurement (about 2 minutes: the quick check of a change to what an operation reads or writes),
 * `BENCH_ONLY=aws` the AWS API's GetSecretValue and BatchGetSecretValue beside the REST reveal by path and the
 * environment load they match (bench/aws-api.ts): their calls, timings, CPU against the floor (bench/cpu.ts) and
 * price, as `operations` of the full run; each printed, and written only to BENCH_OUT if set.
 */
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? benchEffort().loadMs);
const SCOPE_ONLY = process.env.BENCH_ONLY === 'scope';
const LOGIN_ONLY = process.env.BENCH_ONLY === 'login';
const OPS_ONLY = process.env.BENCH_ONLY === 'webhook-ops';
const DELIVERY_ONLY = process.env.BENCH_ONLY === 'delivery';
const AWS_ONLY = process.env.BENCH_ONLY === 'aws';
const ROTATION_ONLY = process.env.BENCH_ONLY === 'rotation';
const SYNCS_ONLY = process.env.BENCH_ONLY === 'syncs';
const CALLS_ONLY = process.env.BENCH_ONLY === 'calls';
const STREAMS_ONLY = process.env.BENCH_ONLY === 'audit-streams';
const EFFORT = benchEffort();
const PART_ONLY =
  SCOPE_ONLY || LOGIN_ONLY || OPS_ONLY || DELIVERY_ONLY || AWS_ONLY || ROTATION_ONLY || SYNCS_ONLY || CALLS_ONLY || STREAMS_ONLY;

/**
 * Prints the name of the phase starting now, the time since the bench started, and how long the step before it took
 * (the previous phase, or the stack's start), so a run shows where its wall time goes.
 */
const phase = (() => {
  const started = performance.now();
  let last = started;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return (name: string) => {
    const now = performance.now();
    process.stdout.write(`${name} (at ${seconds(now - started)}; the step before took ${seconds(now - last)})\n`);
    last = now;
  };
})();

async function main(): Promise<void> {
  const out = resolve(process.env.BENCH_OUT ?? 'bench/results.json');
  if (!PART_ONLY) phase('bundles…');
  const bundles = PART_ONLY
    ? undefined
    : await measureBundles({
        mandatedFloor: measureMandatedFloor,
        pairs: EFFORT.importPairs,
        sidePairs: EFFORT.sidePairs,
      });

  // The stack runs in this process, so the SDK middleware sees every request of the handlers it runs.
  // The reveal rate limit (120 a minute per credential by default) is raised so the load test measures reveals.
  Object.assign(process.env, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    REVEAL_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const { startLocalStack } = await import('../bin/local/stack.ts');
  const localDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const stack = await startLocalStack({ localDir, port: 0, persist: false });
  // Prices every request at AWS billing while an operation is measured (bench/billing.ts).
  const recorder = makeCallRecorder(makeAwsInspector(stack.dynamodbEndpoint, stack.tableName));
  try {
    if (OPS_ONLY) {
      phase('webhook operations…');
      const webhookOperations = await measureWebhookOperations(stack, recorder, EFFORT.recoveredDeliveries, EFFORT.largeRecovery);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), webhookOperations }, null, 2)}\n`);
      process.stdout.write(`${webhookOperationsTable(webhookOperations)}\n${JSON.stringify(webhookOperations, null, 2)}\n`);
      return;
    }
    if (DELIVERY_ONLY) {
      phase('webhook delivery…');
      const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
      const { environmentId } = await prepare(api);
      const delivery = {
        tenEndpointsPerEvent: priceDelivery(await measureDelivery(api, environmentId, recorder, 10)),
        oneEndpointPerEvent: priceDelivery(await measureDelivery(api, environmentId, recorder, 1)),
      };
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), delivery }, null, 2)}\n`);
      process.stdout.write(`${JSON.stringify(delivery, null, 2)}\n`);
      return;
    }
    if (AWS_ONLY) {
      const operations = await measureAws({ baseUrl: stack.baseUrl, apiKey: stack.apiKey }, stack, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), operations }, null, 2)}\n`);
      process.stdout.write(`${operationsTable(operations).join('\n')}\n${JSON.stringify(operations, null, 2)}\n`);
      return;
    }
    if (SYNCS_ONLY) {
      phase('syncs…');
      const syncs = await measureSyncPush({ baseUrl: stack.baseUrl, apiKey: stack.apiKey }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), syncs }, null, 2)}\n`);
      process.stdout.write(`${syncsTable(syncs)}\n${JSON.stringify(syncs, null, 2)}\n`);
      return;
    }
    if (STREAMS_ONLY) {
      phase('audit streams and digests…');
      const streams = await measureAuditStreams({ baseUrl: stack.baseUrl, apiKey: stack.apiKey }, recorder, localDir);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), ...streams }, null, 2)}\n`);
      process.stdout.write(`${auditStreamsTable(streams)}\n${JSON.stringify(streams, null, 2)}\n`);
      return;
    }
    if (CALLS_ONLY) {
      const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
      phase('calls per operation…');
      const setup = await prepare(api);
      const calls = await countCalls(api, setup, recorder);
      phase('latency…');
      const load = await measureLoad(api, setup, { endpoint: stack.dynamodbEndpoint, tableName: stack.tableName }, LOAD_MS);
      const operations = priceOperations(calls, load, {});
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), operations }, null, 2)}\n`);
      process.stdout.write(`${operationsTable(operations).join('\n')}\n${JSON.stringify(operations, null, 2)}\n`);
      return;
    }
    if (ROTATION_ONLY) {
      phase('rotation…');
      const rotation = await measureRotation({ ...stack, localDir }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), rotation }, null, 2)}\n`);
      process.stdout.write(`${rotationTable(rotation)}\n${JSON.stringify(rotation, null, 2)}\n`);
      return;
    }
    if (LOGIN_ONLY) {
      phase('workload identity…');
      const login = await measureLogin({ ...stack, localDir }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), login }, null, 2)}\n`);
      process.stdout.write(`${loginTable(login)}\n${JSON.stringify(login, null, 2)}\n`);
      return;
    }
    if (!bundles) {
      phase("access keys' permissions…");
      const scope = await measureScope({ ...stack, localDir }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), scope }, null, 2)}\n`);
      process.stdout.write(`${scopeTable(scope)}\n${JSON.stringify(scope, null, 2)}\n`);
      return;
    }
    const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
    phase('calls per operation…');
    const setup = await prepare(api);
    const calls = await countCalls(api, setup, recorder);
    // Before the load test: its thousands of reveals (and their audit entries on the table's stream) leave DynamoDB
    // Local and the fan-out busy for minutes, which slowed every phase after them several times over.
    phase("access keys' permissions…");
    const scope = await measureScope({ ...stack, localDir }, recorder);
    phase('workload identity…');
    const login = await measureLogin({ ...stack, localDir }, recorder);
    phase('webhook operations…');
    const webhookOperations = await measureWebhookOperations(stack, recorder, EFFORT.recoveredDeliveries, EFFORT.largeRecovery);
    phase('rotation…');
    const rotation = await measureRotation({ ...stack, localDir }, recorder);
    phase('syncs…');
    const syncs = await measureSyncPush({ baseUrl: stack.baseUrl, apiKey: stack.apiKey }, recorder);
    phase('audit streams and digests…');
    const { auditStreams, digests } = await measureAuditStreams({ baseUrl: stack.baseUrl, apiKey: stack.apiKey }, recorder, localDir);
    phase('webhooks…');
    const webhooks = await measureWebhooks(api, setup.environmentId, { latencySamples: 30, throughputWrites: 25 });
    const deliveries = {
      batch: await measureDelivery(api, setup.environmentId, recorder, 10),
      single: await measureDelivery(api, setup.environmentId, recorder, 1),
      singlesTogether: await measureDelivery(api, setup.environmentId, recorder, 1, 10),
    };
    await removeEndpoints(api);
    // Last on the stack: the load test's reveals keep the fan-out busy long after it (deliveries measured after it
    // waited behind them: the webhooks phase took 48 s once and 98 s the next run).
    phase('latency and throughput…');
    const load = await measureLoad(api, setup, { endpoint: stack.dynamodbEndpoint, tableName: stack.tableName }, LOAD_MS);
    phase('CPU per request against the floor…');
    // A DynamoDB Local of its own, fresh: the stack's, after the load test, answered ten times slower (this phase took
    // 760 s on it, 82 s on its own with the same counts).
    const cpu = await measureCpu({ ...EFFORT.cpu });
    phase('reference workload…');
    const parts = { login, webhookOperations, rotation, syncs, auditStreams, digests };
    const results = { ...assemble(bundles, calls, load, webhooks, deliveries, cpu, scope), ...parts };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    phase('done');
    process.stdout.write(`${table(results)}\nwritten to ${out}\n`);
  } finally {
    recorder.stop();
    await stack.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}

/** The AWS API's reads beside the REST operations they match: calls, timings, CPU against the floor, price. */
async function measureAws(api: Api, stack: { dynamodbEndpoint: string; tableName: string }, recorder: ReturnType<typeof makeCallRecorder>) {
  const names = [
    'revealByPath',
    'revealWithReferences',
    'loadEnvironment',
    'loadEnvironmentWithReferences',
    'awsGetSecretValue',
    'awsBatchGetSecretValue',
  ] as const;
  phase('the AWS API: calls…');
  const setup = await prepare(api);
  const all = await countCalls(api, setup, recorder);
  phase('the AWS API: latency…');
  const load = await measureLoad(api, setup, { endpoint: stack.dynamodbEndpoint, tableName: stack.tableName }, LOAD_MS, [...names]);
  phase('the AWS API: CPU per request against the floor…');
  const cpu = await measureCpu({
    ...EFFORT.cpu,
    operations: ['revealByPath', 'awsGetSecretValue', 'awsBatchGetSecretValue'],
  });
  return priceOperations(Object.fromEntries(names.map((name) => [name, all[name]])), load, cpu);
}

function assemble(
  bundles: Awaited<ReturnType<typeof measureBundles>>,
  calls: Record<string, OperationCalls>,
  load: Awaited<ReturnType<typeof measureLoad>>,
  webhooks: Awaited<ReturnType<typeof measureWebhooks>>,
  deliveries: Record<'batch' | 'single' | 'singlesTogether', Awaited<ReturnType<typeof measureDelivery>>>,
  cpu: CpuResults = {},
  scope?: ScopeResults,
) {
  const operations = priceOperations(calls, load, cpu);
  // Per delivery with 10 endpoints per event (a full worker batch: what the pipeline is built for), with 1 endpoint
  // for an event alone, and with 1 endpoint for 10 events written together (a busy moment).
  const batch = priceDelivery(deliveries.batch);
  const deliveryCost = batch.costPerMillionDeliveriesUsd;
  const webhookFigures = {
    ...webhooks,
    ...batch,
    oneEndpointPerEvent: priceDelivery(deliveries.single),
    oneEndpointTenEventsTogether: priceDelivery(deliveries.singlesTogether),
  };
  const workload = priceWorkload({
    revealPerMillion: operations.revealById!.costPerMillionUsd as number,
    loadPagePerMillion: operations.loadEnvironment!.costPerMillionUsd as number,
    deliveryPerMillion: deliveryCost,
  });
  return {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    prices: PRICES,
    operations,
    bundles: bundles.results,
    emptyHandlerImportMs: bundles.baselineImportMs,
    emptyHandlerProcessMs: bundles.baselineProcessMs,
    bundleSeconds: bundles.seconds,
    sdk: bundles.sdk,
    webhooks: webhookFigures,
    workload,
    ...(scope && { scope }),
  };
}

function table(
  results: ReturnType<typeof assemble> & {
    login?: LoginResults;
    webhookOperations?: WebhookOperationResults;
    rotation?: RotationResults;
    syncs?: SyncPushCost;
    auditStreams?: AuditStreamsCost;
    digests?: DigestsCost;
  },
): string {
  const rows = operationsTable(results.operations);
  const load = results.operations.loadEnvironment as any;
  rows.push(
    '',
    `loadEnvironment: ${load.secrets} secrets a page, ${load.dynamodbRequests} DynamoDB and ${load.kmsRequests} KMS requests warm, $${load.costPerMillionSecretsUsd} per million secrets delivered`,
  );
  rows.push('', bundleTable({ bundles: results.bundles, seconds: results.bundleSeconds }));
  rows.push(
    '',
    `SDK entry (createClient, verifyWebhook): +${results.sdk.bytesOverEmpty} bytes and +${results.sdk.importMsOverEmpty} ms of import over an empty bundle; with the AWS IAM login used (signer and credential chain loaded): +${results.sdk.awsIamUsed.bytesOverEmpty} bytes and +${results.sdk.awsIamUsed.importMsOverEmpty} ms`,
  );
  const w = results.webhooks;
  rows.push(
    '',
    `webhooks: write→receive p50 ${round2(w.writeToReceiveP50Ms)} ms, p95 ${round2(w.writeToReceiveP95Ms)} ms; ${w.deliveriesPerSecond} deliveries/s (${w.delivered}/${w.expected} delivered, 20 endpoints); $${w.costPerMillionDeliveriesUsd} per million deliveries at ${w.endpointsPerEvent} endpoints per event (${JSON.stringify(w.perDelivery)}), $${w.oneEndpointPerEvent.costPerMillionDeliveriesUsd} at 1 (${JSON.stringify(w.oneEndpointPerEvent.perDelivery)}), $${w.oneEndpointTenEventsTogether.costPerMillionDeliveriesUsd} at 1 with 10 events written together (${JSON.stringify(w.oneEndpointTenEventsTogether.perDelivery)})`,
  );
  rows.push(workloadTable(results.workload));
  if (results.scope) rows.push('', scopeTable(results.scope));
  if (results.login) rows.push('', loginTable(results.login));
  if (results.webhookOperations) rows.push('', webhookOperationsTable(results.webhookOperations));
  if (results.rotation) rows.push('', rotationTable(results.rotation));
  if (results.syncs) rows.push('', syncsTable(results.syncs));
  if (results.auditStreams && results.digests)
    rows.push('', auditStreamsTable({ auditStreams: results.auditStreams, digests: results.digests }));
  return rows.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
