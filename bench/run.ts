import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AWS_BATCH_SECRETS, awsApiCalls } from './aws-api.ts';
import { bundleTable, measureBundles } from './bundles.ts';
import { measureCpu } from './cpu.ts';
import { measureMandatedFloor } from './mandated.ts';
import { makeAwsInspector, makeCallRecorder } from './calls.ts';
import { rawStorageCalls, request, runLoad, sequentialP50, type Api } from './load.ts';
import { costPerMillion, lambdaDurationMs, PRICES, type OperationCalls } from './prices.ts';
import { measureScope, scopeTable, type ScopeResults } from './scope.ts';
import { loginTable, measureLogin, type LoginResults } from './login.ts';
import { measureWebhookOperations, webhookOperationsTable, type WebhookOperationResults } from './webhook-operations.ts';
import { round2 } from './stats.ts';
import { measureDelivery, measureWebhooks, priceDelivery } from './webhooks.ts';
import { priceWorkload, workloadTable } from './workload.ts';

/**
 * `npm run bench`: bundles, AWS calls and cost per operation, latency and throughput on the local stack, and the
 * webhook pipeline, in one table; results go to bench/results.json (or BENCH_OUT). Timings never fail anything:
 * the deterministic budgets (request counts, bundle sizes) are asserted by the tests. `BENCH_ONLY=scope` runs only
 * what access keys' permissions cost (bench/scope.ts), `BENCH_ONLY=login` what a workload-identity login costs
 * (bench/login.ts), `BENCH_ONLY=webhook-ops` what test events, recoveries and statistics cost (bench/webhook-operations.ts),
 * `BENCH_ONLY=delivery` what a webhook delivery costs at 10 endpoints an event and at one (bench/webhooks.ts),
 * `BENCH_ONLY=aws` the calls of the AWS API's GetSecretValue and BatchGetSecretValue beside the REST reveals they
 * match (bench/aws-api.ts); each printed, and written only to BENCH_OUT if set.
 */
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 3000);
const SCOPE_ONLY = process.env.BENCH_ONLY === 'scope';
const LOGIN_ONLY = process.env.BENCH_ONLY === 'login';
const OPS_ONLY = process.env.BENCH_ONLY === 'webhook-ops';
const DELIVERY_ONLY = process.env.BENCH_ONLY === 'delivery';
const AWS_ONLY = process.env.BENCH_ONLY === 'aws';
const PART_ONLY = SCOPE_ONLY || LOGIN_ONLY || OPS_ONLY || DELIVERY_ONLY || AWS_ONLY;

async function main(): Promise<void> {
  const out = resolve(process.env.BENCH_OUT ?? 'bench/results.json');
  process.stdout.write(PART_ONLY ? '' : 'bundles…\n');
  const bundles = PART_ONLY ? undefined : await measureBundles({ mandatedFloor: measureMandatedFloor });

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
      process.stdout.write('webhook operations…\n');
      const webhookOperations = await measureWebhookOperations(stack, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), webhookOperations }, null, 2)}\n`);
      process.stdout.write(`${webhookOperationsTable(webhookOperations)}\n${JSON.stringify(webhookOperations, null, 2)}\n`);
      return;
    }
    if (DELIVERY_ONLY) {
      process.stdout.write('webhook delivery…\n');
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
      process.stdout.write('the AWS API…\n');
      const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
      const all = await countCalls(api, await prepare(api), recorder);
      const { revealByPath, loadEnvironment, awsGetSecretValue, awsBatchGetSecretValue } = all;
      const awsCalls = { revealByPath, loadEnvironment, awsGetSecretValue, awsBatchGetSecretValue };
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), awsCalls }, null, 2)}\n`);
      process.stdout.write(`${JSON.stringify(awsCalls, null, 2)}\n`);
      return;
    }
    if (LOGIN_ONLY) {
      process.stdout.write('workload identity…\n');
      const login = await measureLogin({ ...stack, localDir }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), login }, null, 2)}\n`);
      process.stdout.write(`${loginTable(login)}\n${JSON.stringify(login, null, 2)}\n`);
      return;
    }
    if (!bundles) {
      process.stdout.write("access keys' permissions…\n");
      const scope = await measureScope({ ...stack, localDir }, recorder);
      if (process.env.BENCH_OUT) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), scope }, null, 2)}\n`);
      process.stdout.write(`${scopeTable(scope)}\n${JSON.stringify(scope, null, 2)}\n`);
      return;
    }
    const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
    process.stdout.write('calls per operation…\n');
    const setup = await prepare(api);
    const calls = await countCalls(api, setup, recorder);
    process.stdout.write('latency and throughput…\n');
    const load = await measureLoad(api, setup, stack.dynamodbEndpoint, stack.tableName);
    process.stdout.write('webhooks…\n');
    const webhooks = await measureWebhooks(api, setup.environmentId, { latencySamples: 30, throughputWrites: 25 });
    const deliveries = {
      batch: await measureDelivery(api, setup.environmentId, recorder, 10),
      single: await measureDelivery(api, setup.environmentId, recorder, 1),
      singlesTogether: await measureDelivery(api, setup.environmentId, recorder, 1, 10),
    };
    process.stdout.write('CPU per request against the floor…\n');
    const cpu = await measureCpu({ dynamodbEndpoint: stack.dynamodbEndpoint });
    process.stdout.write("access keys' permissions…\n");
    const scope = await measureScope({ ...stack, localDir }, recorder);
    process.stdout.write('workload identity…\n');
    const login = await measureLogin({ ...stack, localDir }, recorder);
    process.stdout.write('webhook operations…\n');
    const webhookOperations = await measureWebhookOperations(stack, recorder);
    process.stdout.write('reference workload…\n');
    const results = { ...assemble(bundles, calls, load, webhooks, deliveries, cpu, scope), login, webhookOperations };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${table(results)}\nwritten to ${out}\n`);
  } finally {
    recorder.stop();
    await stack.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}

/** Reveals averaged for the warm cost of a reveal (the rate-limit leases grow over the first few dozen). */
const REVEAL_RUNS = 100;

/** Secrets in the environment that `loadEnvironment` loads: a typical service's start-up set. */
const LOAD_SECRETS = 30;

/** A project, an environment and a secret with two versions to measure against, and an environment of 30 secrets. */
async function prepare(api: Api) {
  const project = await request(api, 'POST', '/api/v1/projects', { name: 'Bench' }, 201);
  const environment = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'prod' }, 201);
  const environmentId = environment.data.id as string;
  const secretsPath = `/api/v1/environments/${environmentId}/secrets`;
  const secret = await request(api, 'PUT', secretsPath, { key: 'DATABASE_URL', value: 'postgres://bench' });
  await request(api, 'PUT', secretsPath, { key: 'DATABASE_URL', value: 'postgres://bench-2' });
  const loaded = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'load' }, 201);
  const loadPath = `/api/v1/environments/${loaded.data.id}/secrets`;
  for (let i = 0; i < LOAD_SECRETS; i++)
    await request(api, 'PUT', loadPath, { key: `SERVICE_SECRET_${i}`, value: `value-${i}-${'x'.repeat(40)}` });
  return {
    environmentId,
    secretsPath,
    secretId: secret.data.id as string,
    path: 'bench/prod/DATABASE_URL',
    loadPath: `${loadPath}/reveal`,
    loadNames: Array.from({ length: LOAD_SECRETS }, (_, i) => `bench/load/SERVICE_SECRET_${i}`),
  };
}

type Setup = Awaited<ReturnType<typeof prepare>>;
const route = (key: string) => [key];

/** Requests each operation makes, warm (the second of two identical calls, so caches are as in a busy function). */
async function countCalls(api: Api, s: Setup, recorder: ReturnType<typeof makeCallRecorder>) {
  const twice = async (scopes: string[], call: () => Promise<unknown>) => {
    await recorder.measure(scopes, call);
    return recorder.measure(scopes, call);
  };
  // Reveals spend rate-limit leases that grow as a container keeps revealing: priced as the mean of a warm run.
  const warmRun = async (scopes: string[], call: () => Promise<unknown>, runs: number) => {
    await recorder.measure(scopes, call);
    return recorder.measure(scopes, call, 0, runs);
  };
  let n = 0;
  const put = 'PUT /api/v1/environments/{envId}/secrets';
  const aws = await awsApiCalls(api, s);
  const created: string[] = [];
  return {
    createSecret: await recorder.measure(route(put), async () =>
      created.push((await request(api, 'PUT', s.secretsPath, { key: `NEW_${n++}`, value: 'v' })).data.id),
    ),
    rotateSecret: await twice(route(put), () => request(api, 'PUT', s.secretsPath, { key: 'DATABASE_URL', value: `v${n++}` })),
    revealById: await warmRun(
      route('POST /api/v1/secrets/{secretId}/reveal'),
      () => request(api, 'POST', `/api/v1/secrets/${s.secretId}/reveal`),
      REVEAL_RUNS,
    ),
    revealByPath: await warmRun(route('POST /api/v1/reveal'), () => request(api, 'POST', '/api/v1/reveal', { path: s.path }), REVEAL_RUNS),
    listSecrets: await twice(route('GET /api/v1/environments/{envId}/secrets'), () => request(api, 'GET', s.secretsPath)),
    searchSecrets: await twice(route('GET /api/v1/search/secrets'), () => request(api, 'GET', '/api/v1/search/secrets?q=database')),
    // A delete keeps the secret restorable for 7 days by default; a restore brings it back; 0 purges at once.
    deleteSecret: await recorder.measure(route('DELETE /api/v1/secrets/{secretId}'), () =>
      request(api, 'DELETE', `/api/v1/secrets/${created[0]}`),
    ),
    restoreSecret: await recorder.measure(route('POST /api/v1/secrets/{secretId}/restore'), () =>
      request(api, 'POST', `/api/v1/secrets/${created[0]}/restore`),
    ),
    deleteSecretAtOnce: await recorder.measure(route('DELETE /api/v1/secrets/{secretId}'), () =>
      request(api, 'DELETE', `/api/v1/secrets/${created[0]}?recoveryWindowDays=0`),
    ),
    listAudit: await twice(route('GET /api/v1/audit'), () => request(api, 'GET', '/api/v1/audit')),
    loadEnvironment: await warmRun(
      route('POST /api/v1/environments/{envId}/secrets/reveal'),
      () => request(api, 'POST', s.loadPath, {}),
      10,
    ),
    // The AWS API (POST /, signed with SigV4 by the AWS SDK): the same reveal by path, and 20 of the loaded secrets.
    awsGetSecretValue: await warmRun(route('POST /'), aws.getSecretValue, REVEAL_RUNS),
    awsBatchGetSecretValue: await warmRun(route('POST /'), aws.batchGetSecretValue, 10),
  };
}

/** Reveal, write and list at concurrency 1 and 16, and the raw storage floor of each at concurrency 1. */
async function measureLoad(api: Api, s: Setup, endpoint: string, tableName: string) {
  const raw = rawStorageCalls(endpoint, tableName);
  await raw.seed();
  const aws = await awsApiCalls(api, s);
  const keys = Array.from({ length: 64 }, (_, i) => `LOAD_${i}`);
  const ops = {
    revealById: { run: () => request(api, 'POST', `/api/v1/secrets/${s.secretId}/reveal`), raw: raw.reveal },
    createSecret: {
      run: (i: number) => request(api, 'PUT', s.secretsPath, { key: keys[i % keys.length], value: `v${i}` }),
      raw: raw.write,
    },
    listSecrets: { run: () => request(api, 'GET', s.secretsPath), raw: raw.list },
    loadEnvironment: { run: () => request(api, 'POST', s.loadPath, {}), raw: raw.list },
    awsGetSecretValue: { run: aws.getSecretValue, raw: raw.reveal },
    awsBatchGetSecretValue: { run: aws.batchGetSecretValue, raw: raw.list },
  };
  const results: Record<
    string,
    { c1: Awaited<ReturnType<typeof runLoad>>; c16: Awaited<ReturnType<typeof runLoad>>; rawP50: number; responseBytes: number }
  > = {};
  for (const [name, op] of Object.entries(ops)) {
    // API Gateway meters in 512 KB steps: the answer's size (the request is far smaller) decides the steps.
    const responseBytes = Buffer.byteLength(JSON.stringify(await op.run(0)));
    const c1 = await runLoad(async (i) => void (await op.run(i)), 1, LOAD_MS);
    const c16 = await runLoad(async (i) => void (await op.run(i)), 16, LOAD_MS);
    const rawP50 = await sequentialP50(op.raw, 200);
    results[name] = { c1, c16, rawP50, responseBytes };
  }
  return results;
}

/** CPU figures of the handler against its floor (bench/cpu.ts), per operation. */
type CpuFigures = Partial<
  Record<string, { cpuMsPerRequest: number; floorCpuMsPerRequest: number; cpuFloorRatio: number; ownCpuMsPerRequest?: number }>
>;

function assemble(
  bundles: Awaited<ReturnType<typeof measureBundles>>,
  calls: Record<string, OperationCalls>,
  load: Awaited<ReturnType<typeof measureLoad>>,
  webhooks: Awaited<ReturnType<typeof measureWebhooks>>,
  deliveries: Record<'batch' | 'single' | 'singlesTogether', Awaited<ReturnType<typeof measureDelivery>>>,
  cpu: CpuFigures = {},
  scope?: ScopeResults,
) {
  const operations: Record<string, Record<string, unknown>> = {};
  for (const [name, c] of Object.entries(calls)) {
    const l = load[name];
    // Unmeasured operations take the closest measured one's time: writes a write's, reads a list's.
    const wallMs =
      l?.c1.p50 ??
      (['rotateSecret', 'deleteSecret', 'restoreSecret', 'deleteSecretAtOnce'].includes(name)
        ? load.createSecret?.c1.p50
        : name === 'revealByPath'
          ? load.revealById?.c1.p50
          : load.listSecrets?.c1.p50) ??
      30;
    // A reveal by path runs the reveal's code: its CPU is taken to be the reveal by id's.
    const cpuMs = (cpu[name] ?? (name === 'revealByPath' ? cpu.revealById : undefined))?.cpuMsPerRequest ?? null;
    const durationMs = lambdaDurationMs(wallMs, cpuMs);
    operations[name] = {
      ...c,
      costPerMillionUsd: costPerMillion(c, { apiBytes: l?.responseBytes ?? 1, lambdaInvocations: 1, durationMs }),
      lambdaDurationMs: durationMs,
      cpuMsPerRequest: cpu[name]?.cpuMsPerRequest ?? null,
      floorCpuMsPerRequest: cpu[name]?.floorCpuMsPerRequest ?? null,
      cpuFloorRatio: cpu[name]?.cpuFloorRatio ?? null,
      ...(cpu[name]?.ownCpuMsPerRequest !== undefined ? { ownCpuMsPerRequest: cpu[name]!.ownCpuMsPerRequest } : {}),
      ...(cpu[name] ? {} : { cpuNull: 'CPU is measured for revealById and listSecrets only (bench/cpu.ts)' }),
      ...(name.startsWith('aws') && { api: 'the AWS Secrets Manager API: POST / signed with SigV4 by the AWS SDK for JavaScript' }),
      p50Ms: round2(l?.c1.p50 ?? null),
      p95Ms: round2(l?.c1.p95 ?? null),
      p99Ms: round2(l?.c1.p99 ?? null),
      rps: round2(l?.c1.rps ?? null),
      concurrency16: l ? { p50Ms: round2(l.c16.p50), p95Ms: round2(l.c16.p95), p99Ms: round2(l.c16.p99), rps: round2(l.c16.rps) } : null,
      rawStorageP50Ms: round2(l?.rawP50 ?? null),
      overheadRatio: l ? round2(l.c1.p50! / l.rawP50) : null,
      ...(l ? {} : { timingsNull: 'not load-tested; its Lambda duration is that of the closest measured operation' }),
    };
    const perCall = { loadEnvironment: LOAD_SECRETS, awsBatchGetSecretValue: AWS_BATCH_SECRETS }[name];
    if (perCall !== undefined) {
      // One call delivers many secrets: the cost that matters is per secret delivered.
      const perPage = operations[name].costPerMillionUsd as number;
      Object.assign(operations[name], { secrets: perCall, costPerMillionSecretsUsd: Math.round((perPage / perCall) * 1000) / 1000 });
    }
  }
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

function table(results: ReturnType<typeof assemble> & { login?: LoginResults; webhookOperations?: WebhookOperationResults }): string {
  const rows = [
    '| operation | DynamoDB req | billed RRU | billed WRU (index) | KMS | SQS | Lambda ms | $/M ops (AWS billing) | CPU ms | floor CPU ms | CPU ratio | p50 ms (c1) | p95 | p99 | rps c1 | rps c16 | p50 c16 | raw p50 | ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, o] of Object.entries(results.operations) as [string, any][]) {
    rows.push(
      `| ${name} | ${o.dynamodbRequests} | ${o.billedReadUnits} | ${o.billedWriteUnits} (${o.billedIndexWriteUnits}) | ${o.kmsRequests} | ${o.sqsRequests} | ${o.lambdaDurationMs} | ${o.costPerMillionUsd} | ${o.cpuMsPerRequest ?? '–'} | ${o.floorCpuMsPerRequest ?? '–'} | ${o.cpuFloorRatio ?? '–'} | ${o.p50Ms ?? '–'} | ${o.p95Ms ?? '–'} | ${o.p99Ms ?? '–'} | ${o.rps ?? '–'} | ${o.concurrency16?.rps ?? '–'} | ${o.concurrency16?.p50Ms ?? '–'} | ${o.rawStorageP50Ms ?? '–'} | ${o.overheadRatio ?? '–'} |`,
    );
  }
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
  return rows.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
