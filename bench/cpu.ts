import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { freePort, startDynamoDbLocal } from '../bin/local/dynamodb.ts';
import { ensureTable } from '../bin/local/table.ts';
import { loadOrCreateMasterKey } from '../shared/crypto/local-keyring.ts';
import type { ChildOptions, Operation } from './cpu-child.ts';

/**
 * CPU per request of the secrets handler against its floor (issue "Performance"): Lambda bills wall time, and at
 * 512 MB a function has under a third of a core, so every millisecond of CPU is about three of billed duration.
 *
 * A child Node process (bench/cpu-child.ts) imports the real handler module over DynamoDB Local, seeds a workspace,
 * warms up, and counts its own CPU (user + system) over N sequential invocations with API Gateway v2 events; then
 * the floor: the same DynamoDB requests and AES-GCM work as the handler made, recorded from it and replayed with
 * plain @aws-sdk/lib-dynamodb calls. Idle CPU of the child over as long is subtracted; the medians of the rounds
 * are reported. DynamoDB Local's process is not counted, nor anything of the parent.
 */
export interface CpuOptions {
  /** Measured requests per round and side (default 500). */
  requests?: number;
  /** Warm-up requests before measuring (default 200). */
  warmup?: number;
  /** Rounds; the medians are reported (default 3). */
  rounds?: number;
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

export type CpuResults = Record<Operation, CpuFigures>;

const CHILD = fileURLToPath(new URL('./cpu-child.ts', import.meta.url));

/** Measures the CPU per request of reveal and list and of their floors, in a child process. */
export async function measureCpu(options: CpuOptions = {}): Promise<CpuResults> {
  return (await inChild(options, {})) as CpuResults;
}

/**
 * Profiles `operation`'s handler (or its floor) over `requests` warm requests with V8's sampling profiler and
 * writes the .cpuprofile to `file` (open it in Chrome DevTools, or summarize it with bench/cpu-profile.ts). `stub`
 * profiles the handler with every DynamoDB request answered from memory: its own work alone, without the SDK.
 */
export async function profileCpu(operation: Operation, side: 'handler' | 'floor' | 'stub', file: string, options: CpuOptions = {}) {
  return inChild({ ...options, requests: options.requests ?? 3000 }, { profile: { operation, side, file } });
}

async function inChild(options: CpuOptions, extra: Partial<ChildOptions>): Promise<unknown> {
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
    const childOptions: ChildOptions = {
      requests: options.requests ?? 500,
      warmup: options.warmup ?? 200,
      rounds: options.rounds ?? 3,
      listSize: options.listSize ?? 20,
      ...extra,
    };
    return await runChild(childOptions, {
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
function runChild(options: ChildOptions, env: Record<string, string>): Promise<unknown> {
  const child = fork(CHILD, [], {
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

/** `node bench/cpu.ts` prints the figures; `node bench/cpu.ts --profile revealById [handler|floor|stub] [file]` profiles. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [flag, operation = 'revealById', side = 'handler', file] = process.argv.slice(2);
  const run =
    flag === '--profile'
      ? profileCpu(operation as Operation, side as 'handler' | 'floor' | 'stub', file ?? join(process.cwd(), `cpu-${operation}-${side}.cpuprofile`))
      : measureCpu();
  run.then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
