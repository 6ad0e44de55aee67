import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { freePort, startDynamoDbLocal } from '../bin/local/dynamodb.ts';
import { ensureTable } from '../bin/local/table.ts';
import { loadOrCreateMasterKey } from '../shared/platform/crypto/local-keyring.ts';
import { AWS_BATCH_SECRETS } from './aws-api.ts';
import type { ChildOptions, Operation } from './cpu-child.ts';
import { OPERATIONS } from './cpu-subjects.ts';
import type { ScopeChildOptions } from './scope-cpu-child.ts';
import type { CallLists } from './scope-calls.ts';

/**
 * CPU per request of the API's handlers against their floor (issue "Performance"): Lambda bills wall time, and at
 * 512 MB a function has under a third of a core, so every millisecond of CPU is about three of billed duration.
 *
 * A child Node process (bench/cpu-child.ts) imports the real handler modules over DynamoDB Local, seeds a workspace,
 * warms up, and counts its own CPU (user + system) over N sequential invocations with API Gateway v2 events; then
 * the floor: the same DynamoDB requests and AES-GCM work as the handler made, recorded from it and replayed with
 * plain @aws-sdk/lib-dynamodb calls, as many requests in flight together as the handler had (bench/cpu-floor.ts).
 * Idle CPU of the child over as long is subtracted; the medians of the rounds are reported. DynamoDB Local's process
 * is not counted, nor anything of the parent.
 *
 * The operations (bench/cpu-subjects.ts): the secrets route group's reveal by id, list and reveal by path, and the
 * AWS API's GetSecretValue (the same secret as the reveals) and BatchGetSecretValue of 20 secrets (its figures are
 * per call), through functions/aws/handler.ts with events signed with SigV4 ahead of each pass (bench/cpu-aws.ts).
 * Checking the signature is the handler's work; the floor holds no signature check, as REST's holds no token check.
 */
export interface CpuOptions {
  /** What to measure (default: every operation, bench/cpu-subjects.ts `OPERATIONS`). */
  operations?: Operation[];
  /** Measured requests per round and side (default 500; a batch runs a fifth as many calls). */
  requests?: number;
  /** Warm-up requests before measuring (default 200). */
  warmup?: number;
  /** Rounds; the medians are reported (default 3). */
  rounds?: number;
  /** The floor sends each command alone, as before 9def0f6: only to compare with figures of that time. */
  sequentialFloor?: boolean;
  /** Secrets in the listed environment (default 20). */
  listSize?: number;
  /** An already running DynamoDB Local (a table of its own is made in it); otherwise one is started in memory. */
  dynamodbEndpoint?: string;
}

export interface CpuFigures {
  cpuMsPerRequest: number;
  floorCpuMsPerRequest: number;
  cpuFloorRatio: number;
  requests: number;
  rounds: number;
  idleCpuMsPerSecond: number;
  handlerMsPerRequest: number;
  floorMsPerRequest: number;
  /** The handler's own work: CPU ms per request with DynamoDB answered in memory (no SDK, no network). */
  ownCpuMsPerRequest: number;
  /** The floor's steps of one request, as recorded from the handler. */
  floorCalls: string[];
}

export type CpuResults = Partial<Record<Operation, CpuFigures>>;

const CHILD = fileURLToPath(new URL('./cpu-child.ts', import.meta.url));
const SCOPE_CHILD = fileURLToPath(new URL('./scope-cpu-child.ts', import.meta.url));

/** Measures the CPU per request of `options.operations` (default all) and of their floors, in a child process. */
export async function measureCpu(options: CpuOptions = {}): Promise<CpuResults> {
  return (await inChild(options, { operations: options.operations ?? [...OPERATIONS] })) as CpuResults;
}

/** Own-work CPU per request and call lists of one operation with each key (bench/scope-cpu-child.ts). */
export interface ScopeCpuFigures {
  ownCpuMsPerRequest: { unscoped: number; fiftyRules: number };
  /** fiftyRules / unscoped, the median of the rounds' ratios. */
  ratio: number;
  rounds: number;
  requests: number;
  /** Each key's recorded requests: their lists of DynamoDB and KMS calls, how many requests made each, and leases. */
  calls: Record<'unscoped' | 'fiftyRules', CallLists>;
  callsIdentical: boolean;
  /** What each key's reads answered, per request (the 50 rules travel on the token item). */
  reads: Record<'unscoped' | 'fiftyRules', { bytesPerRequest: number; readUnitsPerRequest: number }>;
}

export type ScopeCpuResults = Record<'revealById' | 'writeSecret' | 'loadEnvironment', ScopeCpuFigures>;

/**
 * What 50 rules cost the secrets handler against a key without rules, for a reveal by id, a write and a bulk load:
 * the handler's own work (DynamoDB answered in memory from each key's recording) and the calls each key made.
 */
export async function measureScopeCpu(options: { dynamodbEndpoint?: string } & Partial<ScopeChildOptions> = {}): Promise<ScopeCpuResults> {
  const { dynamodbEndpoint, ...rest } = options;
  // 6 rounds (10 before issue 52's 10-minute bench): the figure is the median of the rounds' ratios.
  const child: ScopeChildOptions = { requests: 200, passMs: 300, warmup: 30, rounds: 6, recorded: 50, listSize: 20, ...rest };
  return (await inChild({ ...(dynamodbEndpoint && { dynamodbEndpoint }) }, child, SCOPE_CHILD)) as ScopeCpuResults;
}

/**
 * Profiles `operation`'s handler (or its floor) over `requests` warm requests (a batch: its share of them) with V8's
 * sampling profiler and writes the .cpuprofile to `file` (open it in Chrome DevTools, or summarize it with
 * bench/cpu-profile.ts). `stub` profiles the handler with every DynamoDB request answered from memory: its own work
 * alone, without the SDK.
 */
export async function profileCpu(operation: Operation, side: 'handler' | 'floor' | 'stub', file: string, options: CpuOptions = {}) {
  return inChild({ ...options, requests: options.requests ?? 3000 }, { profile: { operation, side, file } });
}

async function inChild(options: CpuOptions, extra: Partial<ChildOptions> | ScopeChildOptions, path = CHILD): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cpu-'));
  const dynamo = options.dynamodbEndpoint ? undefined : await startDynamoDbLocal({ port: await freePort(), dataDir: null });
  const endpoint = options.dynamodbEndpoint ?? dynamo!.endpoint;
  try {
    const tableName = `cpu-bench-${Date.now()}`;
    const admin = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(admin, tableName);
    admin.destroy();
    const keyFile = join(dir, 'master.key');
    await loadOrCreateMasterKey(keyFile);
    const childOptions = {
      requests: options.requests ?? 500,
      warmup: options.warmup ?? 200,
      rounds: options.rounds ?? 3,
      listSize: options.listSize ?? 20,
      batchSecrets: AWS_BATCH_SECRETS,
      sequentialFloor: options.sequentialFloor,
      ...extra,
    };
    return await runChild(path, childOptions, {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      LOCAL_KEYRING_FILE: keyFile,
    });
  } finally {
    await dynamo?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the child with the settings of a deployed API function and nothing of this process's environment (the
 * bench sets ERROR logging for itself; a deployed function logs at Powertools' default, INFO, one access line per
 * request, and that line is part of its CPU). Its stdout (the log lines) goes to /dev/null, as cheap a sink as
 * Lambda's.
 */
function runChild(path: string, options: ChildOptions | ScopeChildOptions, env: Record<string, string>): Promise<unknown> {
  const child = fork(path, [], {
    execArgv: ['--expose-gc'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AWS_REGION: 'local',
      SERVICE_NAME: 'secrets-service',
      POWERTOOLS_SERVICE_NAME: 'secrets-service',
      // Far above what the bench makes, so every reveal is measured, none refused.
      REVEAL_RATE_LIMIT_PER_MINUTE: '1000000',
      REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: '10000000',
      CPU_BENCH_OPTIONS: JSON.stringify(options),
      ...(process.env.CPU_BENCH_VERBOSE ? { CPU_BENCH_VERBOSE: '1' } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let answer: { result?: unknown; error?: string } | undefined;
    child.on('message', (message) => (answer = message as typeof answer));
    child.on('exit', (code) => {
      if (answer?.result !== undefined) resolve(answer.result);
      else reject(new Error(`CPU bench child failed (exit ${code}): ${answer?.error ?? 'no answer'}`));
    });
  });
}

/**
 * `node bench/cpu.ts [operation …]` prints the figures (of every operation by default); `node bench/cpu.ts --scope`
 * those of 50 rules against none; `node bench/cpu.ts --profile revealById [handler|floor|stub] [file]` profiles.
 * `--sequential-floor` anywhere measures against the floor of before 9def0f6 (each command sent alone).
 */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sequentialFloor = process.argv.includes('--sequential-floor');
  const args = process.argv.slice(2).filter((arg) => arg !== '--sequential-floor');
  const [flag, operation = 'revealById', side = 'handler', file] = args;
  const run =
    flag === '--profile'
      ? profileCpu(
          operation as Operation,
          side as 'handler' | 'floor' | 'stub',
          file ?? join(process.cwd(), `cpu-${operation}-${side}.cpuprofile`),
          { sequentialFloor },
        )
      : flag === '--scope'
        ? measureScopeCpu()
        : measureCpu({ ...(args.length && { operations: args as Operation[] }), sequentialFloor });
  run.then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
