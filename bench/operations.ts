// The bench's API operations (bench/run.ts): the data they run on, their AWS calls, their timings and their price.
import { AWS_BATCH_SECRETS, awsApiCalls } from './aws-api.ts';
import type { CpuFigures, CpuResults } from './cpu.ts';
import { OPERATIONS } from './cpu-subjects.ts';
import type { makeCallRecorder } from './calls.ts';
import { rawStorageCalls, request, runLoad, sequentialP50, type Api } from './load.ts';
import { costPerMillion, lambdaDurationMs, type OperationCalls } from './prices.ts';
import { round2 } from './stats.ts';

/** Reveals averaged for the warm cost of a reveal (the rate-limit leases grow over the first few dozen). */
const REVEAL_RUNS = 100;

/** Secrets in the environment that `loadEnvironment` loads: a typical service's start-up set. */
export const LOAD_SECRETS = 30;

/** Of the 30 secrets of the environment `loadEnvironmentWithReferences` loads, how many hold a reference (issue 48). */
export const LOAD_REFERENCING = 10;

/**
 * A project, an environment and a secret with two versions to measure against, an environment of 30 secrets, one
 * whose value references 3 secrets of its environment (`refs`), and 30 secrets of which 10 reference one other of
 * theirs (`load-refs`): environments of their own, so the other operations' lists and searches read what they did.
 */
export async function prepare(api: Api) {
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
  const refs = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'refs' }, 201);
  const refsPath = `/api/v1/environments/${refs.data.id}/secrets`;
  for (const [key, value] of [
    ['DB_USER', 'app'],
    ['DB_PASSWORD', 'x'.repeat(32)],
    ['DB_HOST', 'db.internal:5432'],
  ])
    await request(api, 'PUT', refsPath, { key, value });
  await request(api, 'PUT', refsPath, { key: 'DATABASE_URL', value: 'postgres://${DB_USER}:${DB_PASSWORD}@${DB_HOST}/app' });
  const loadRefs = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'load-refs' }, 201);
  const loadRefsPath = `/api/v1/environments/${loadRefs.data.id}/secrets`;
  for (let i = 0; i < LOAD_SECRETS; i++) {
    const value = i < LOAD_REFERENCING ? `prefix-\${SERVICE_SECRET_${i + LOAD_REFERENCING}}-suffix` : `value-${i}-${'x'.repeat(40)}`;
    await request(api, 'PUT', loadRefsPath, { key: `SERVICE_SECRET_${i}`, value });
  }
  return {
    environmentId,
    secretsPath,
    referencingPath: 'bench/refs/DATABASE_URL',
    loadReferencingPath: `${loadRefsPath}/reveal`,
    secretId: secret.data.id as string,
    path: 'bench/prod/DATABASE_URL',
    loadPath: `${loadPath}/reveal`,
    loadNames: Array.from({ length: LOAD_SECRETS }, (_, i) => `bench/load/SERVICE_SECRET_${i}`),
  };
}

export type Setup = Awaited<ReturnType<typeof prepare>>;
const route = (key: string) => [key];

/** Requests each operation makes, warm (the second of two identical calls, so caches are as in a busy function). */
export async function countCalls(api: Api, s: Setup, recorder: ReturnType<typeof makeCallRecorder>) {
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
    // The same reveal of a value with 3 references in its environment: one more batch read, 4 audit entries (issue 48).
    revealWithReferences: await warmRun(
      route('POST /api/v1/reveal'),
      () => request(api, 'POST', '/api/v1/reveal', { path: s.referencingPath }),
      REVEAL_RUNS,
    ),
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
    loadEnvironmentWithReferences: await warmRun(
      route('POST /api/v1/environments/{envId}/secrets/reveal'),
      () => request(api, 'POST', s.loadReferencingPath, {}),
      10,
    ),
    // The AWS API (POST /, signed with SigV4 by the AWS SDK): the same reveal by path, and 20 of the loaded secrets.
    awsGetSecretValue: await warmRun(route('POST /'), aws.getSecretValue, REVEAL_RUNS),
    awsBatchGetSecretValue: await warmRun(route('POST /'), aws.batchGetSecretValue, 10),
  };
}

type Load = { c1: Awaited<ReturnType<typeof runLoad>>; c16: Awaited<ReturnType<typeof runLoad>>; rawP50: number; responseBytes: number };

/**
 * Reveals, write, list, the environment load and the AWS API's reads at concurrency 1 and 16 for `loadMs` each, and
 * the raw storage floor of each at concurrency 1; `only` those named when given.
 */
export async function measureLoad(api: Api, s: Setup, storage: { endpoint: string; tableName: string }, loadMs: number, only?: string[]) {
  const raw = rawStorageCalls(storage.endpoint, storage.tableName);
  await raw.seed();
  const aws = await awsApiCalls(api, s);
  const keys = Array.from({ length: 64 }, (_, i) => `LOAD_${i}`);
  const ops = {
    revealById: { run: () => request(api, 'POST', `/api/v1/secrets/${s.secretId}/reveal`), raw: raw.reveal },
    revealByPath: { run: () => request(api, 'POST', '/api/v1/reveal', { path: s.path }), raw: raw.reveal },
    revealWithReferences: { run: () => request(api, 'POST', '/api/v1/reveal', { path: s.referencingPath }), raw: raw.reveal },
    createSecret: {
      run: (i: number) => request(api, 'PUT', s.secretsPath, { key: keys[i % keys.length], value: `v${i}` }),
      raw: raw.write,
    },
    listSecrets: { run: () => request(api, 'GET', s.secretsPath), raw: raw.list },
    loadEnvironment: { run: () => request(api, 'POST', s.loadPath, {}), raw: raw.list },
    loadEnvironmentWithReferences: { run: () => request(api, 'POST', s.loadReferencingPath, {}), raw: raw.list },
    awsGetSecretValue: { run: aws.getSecretValue, raw: raw.reveal },
    awsBatchGetSecretValue: { run: aws.batchGetSecretValue, raw: raw.list },
  };
  const results: Record<string, Load> = {};
  for (const [name, op] of Object.entries(ops)) {
    if (only && !only.includes(name)) continue;
    // API Gateway meters in 512 KB steps: the answer's size (the request is far smaller) decides the steps.
    const responseBytes = Buffer.byteLength(JSON.stringify(await op.run(0)));
    const c1 = await runLoad(async (i) => void (await op.run(i)), 1, loadMs);
    const c16 = await runLoad(async (i) => void (await op.run(i)), 16, loadMs);
    const rawP50 = await sequentialP50(op.raw, 200);
    results[name] = { c1, c16, rawP50, responseBytes };
  }
  return results;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Each operation's calls, price, CPU figures and timings. Lambda's billed duration is the local wall time (p50 at
 * concurrency 1) with the operation's measured CPU stretched to 512 MB's share of a core (prices.ts
 * `lambdaDurationMs`); an operation without CPU figures of its own is billed at its wall time.
 */
export function priceOperations(calls: Record<string, OperationCalls>, load: Record<string, Load>, cpu: CpuResults = {}) {
  const figuresOf = (name: string) => (cpu as Record<string, CpuFigures | undefined>)[name];
  const operations: Record<string, Record<string, unknown>> = {};
  for (const [name, c] of Object.entries(calls)) {
    const l = load[name];
    const figures = figuresOf(name);
    // Unmeasured operations take the closest measured one's time: writes a write's, reads a list's.
    const wallMs =
      l?.c1.p50 ??
      (['rotateSecret', 'deleteSecret', 'restoreSecret', 'deleteSecretAtOnce'].includes(name)
        ? load.createSecret?.c1.p50
        : name === 'revealByPath'
          ? load.revealById?.c1.p50
          : load.listSecrets?.c1.p50) ??
      30;
    // A reveal by path runs the reveal's code: unmeasured, its CPU is taken to be the reveal by id's.
    const cpuMs = (figures ?? (name === 'revealByPath' ? figuresOf('revealById') : undefined))?.cpuMsPerRequest ?? null;
    const durationMs = lambdaDurationMs(wallMs, cpuMs);
    operations[name] = {
      ...c,
      costPerMillionUsd: costPerMillion(c, { apiBytes: l?.responseBytes ?? 1, lambdaInvocations: 1, durationMs }),
      lambdaDurationMs: durationMs,
      cpuMsPerRequest: figures?.cpuMsPerRequest ?? null,
      floorCpuMsPerRequest: figures?.floorCpuMsPerRequest ?? null,
      cpuFloorRatio: figures?.cpuFloorRatio ?? null,
      ...(figures?.ownCpuMsPerRequest !== undefined ? { ownCpuMsPerRequest: figures.ownCpuMsPerRequest } : {}),
      ...(figures ? {} : { cpuNull: `CPU is measured for ${OPERATIONS.join(', ')} only (bench/cpu.ts)` }),
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
    const perCall = {
      loadEnvironment: LOAD_SECRETS,
      loadEnvironmentWithReferences: LOAD_SECRETS,
      awsBatchGetSecretValue: AWS_BATCH_SECRETS,
    }[name];
    if (perCall !== undefined) {
      // One call delivers many secrets: the cost that matters is per secret delivered (the CPU figures are per call).
      const perPage = operations[name].costPerMillionUsd as number;
      Object.assign(operations[name], {
        secrets: perCall,
        costPerMillionSecretsUsd: round3(perPage / perCall),
        ...(figures && {
          cpuMsPerSecret: round3(figures.cpuMsPerRequest / perCall),
          floorCpuMsPerSecret: round3(figures.floorCpuMsPerRequest / perCall),
        }),
      });
    }
  }
  // Issue 48's budgets: a reveal with 3 references at most 1.6× a plain one, a load with 10 of 30 at most 1.25×.
  for (const [name, plain] of [
    ['revealWithReferences', 'revealByPath'],
    ['loadEnvironmentWithReferences', 'loadEnvironment'],
  ] as const) {
    const [a, b] = [operations[name]?.costPerMillionUsd, operations[plain]?.costPerMillionUsd] as (number | undefined)[];
    if (a !== undefined && b) Object.assign(operations[name]!, { costRatioToPlain: round3(a / b), plainOperation: plain });
  }
  return operations;
}

/** The operations' table (Markdown), a row each. */
export function operationsTable(operations: Record<string, Record<string, unknown>>): string[] {
  const rows = [
    '| operation | DynamoDB req | billed RRU | billed WRU (index) | KMS | SQS | Lambda ms | $/M ops (AWS billing) | CPU ms | floor CPU ms | CPU ratio | p50 ms (c1) | p95 | p99 | rps c1 | rps c16 | p50 c16 | raw p50 | ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, o] of Object.entries(operations) as [string, any][]) {
    rows.push(
      `| ${name} | ${o.dynamodbRequests} | ${o.billedReadUnits} | ${o.billedWriteUnits} (${o.billedIndexWriteUnits}) | ${o.kmsRequests} | ${o.sqsRequests} | ${o.lambdaDurationMs} | ${o.costPerMillionUsd} | ${o.cpuMsPerRequest ?? '–'} | ${o.floorCpuMsPerRequest ?? '–'} | ${o.cpuFloorRatio ?? '–'} | ${o.p50Ms ?? '–'} | ${o.p95Ms ?? '–'} | ${o.p99Ms ?? '–'} | ${o.rps ?? '–'} | ${o.concurrency16?.rps ?? '–'} | ${o.concurrency16?.p50Ms ?? '–'} | ${o.rawStorageP50Ms ?? '–'} | ${o.overheadRatio ?? '–'} |`,
    );
  }
  return rows;
}
