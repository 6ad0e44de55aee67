import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { apiEvent, lambdaContext } from './cpu-events.ts';
import { floorRefusals, makeFloor, recordSteps, stubSends, type Recording } from './cpu-floor.ts';
import { invoke, median, pass, round3, timed } from './cpu-passes.ts';
import { seedWorkspace } from './cpu-seed.ts';

/**
 * The child process of bench/cpu.ts: nothing runs here but the handler (or its floor) and this loop, so the process
 * CPU counters (process.cpuUsage: user + system) measure the handler's own work. DynamoDB Local is another process.
 *
 * It imports the real handler module of the secrets route group, functions/secrets/handler.ts, exactly as Lambda
 * does, configured from the environment the parent sets: the table on DynamoDB Local and LOCAL_KEYRING_FILE, the
 * local keyring standing in for KMS (as under `npm start`). Nothing else is loaded in the process before it: no AWS
 * call observer (bin/local/instrumentation.ts) and no HTTP front, so the handler runs as it does in Lambda.
 */

export interface ChildOptions {
  requests: number;
  warmup: number;
  rounds: number;
  /** Secrets in the listed environment (the page a list answers). */
  listSize: number;
  /** Profile mode: only this operation's handler (or floor) for `requests` requests, profiled into `file`. */
  profile?: { operation: Operation; side: 'handler' | 'floor' | 'stub'; file: string };
}

export type Operation = 'revealById' | 'listSecrets';

/** One round of an operation: CPU ms per request of the handler and of the floor, idle CPU already subtracted. */
interface Round {
  cpuMs: number;
  floorCpuMs: number;
  idleCpuMsPerSecond: number;
  handlerWallMs: number;
  floorWallMs: number;
}

/** The seeded workspace and the events of each operation. */
async function seed(listSize: number) {
  const { handler, doc, apiKey, environment, secret } = await seedWorkspace(listSize);
  const events: Record<Operation, () => APIGatewayProxyEventV2> = {
    revealById: () => apiEvent('POST /api/v1/secrets/{secretId}/reveal', apiKey, { pathParameters: { secretId: secret.id } }),
    listSecrets: () => apiEvent('GET /api/v1/environments/{envId}/secrets', apiKey, { pathParameters: { envId: environment.id } }),
  };
  return { handler, doc, events };
}

/** Requests per block when the handler and the floor take turns: small, so that a change of load around them hits both alike. */
const BLOCK = 5;

/**
 * `n` requests of the handler and `n` of the floor, in alternating blocks: both then run under the same conditions
 * (other processes on the machine, CPU frequency), so their ratio holds even when the load around them changes.
 */
async function alternate<T>(
  n: number,
  make: (i: number) => T,
  handler: (input: T) => Promise<unknown>,
  floor: (i: number) => Promise<unknown>,
) {
  const inputs = Array.from({ length: n }, (_, i) => make(i));
  const floorInputs = Array.from({ length: n }, (_, i) => i);
  const sum = { handler: { cpuMs: 0, systemMs: 0, wallMs: 0 }, floor: { cpuMs: 0, systemMs: 0, wallMs: 0 } };
  const add = (into: typeof sum.handler, part: typeof sum.handler) => {
    into.cpuMs += part.cpuMs;
    into.systemMs += part.systemMs;
    into.wallMs += part.wallMs;
  };
  globalThis.gc?.();
  for (let start = 0; start < n; start += BLOCK) {
    add(sum.handler, await timed(inputs.slice(start, start + BLOCK), handler));
    add(sum.floor, await timed(floorInputs.slice(start, start + BLOCK), floor));
  }
  return sum;
}

/** CPU ms per wall ms of this process doing nothing (timers, sockets kept alive), over `ms`. */
async function idleCpuRate(ms: number): Promise<number> {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

async function main(options: ChildOptions): Promise<unknown> {
  const t0 = performance.now();
  const mark = (what: string) =>
    process.env.CPU_BENCH_VERBOSE && process.stderr.write(`${what}: ${Math.round(performance.now() - t0)} ms\n`);
  const { handler, doc, events } = await seed(options.listSize);
  mark('seeded');
  const { makeDocumentClient } = await import('../shared/platform/clients/dynamodb.ts');
  const floorDoc = makeDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const expected: Record<Operation, number> = { revealById: 200, listSecrets: 200 };
  const callHandler = (op: Operation) => (input: { event: APIGatewayProxyEventV2; context: Context }) =>
    invoke(handler, input.event, input.context, expected[op]);
  const handlerInput = (op: Operation) => () => ({ event: events[op](), context: lambdaContext() });
  const floors = {} as Record<Operation, ReturnType<typeof makeFloor>>;
  const recordings = {} as Record<Operation, Recording>;
  const operations: Operation[] = options.profile ? [options.profile.operation] : ['revealById', 'listSecrets'];
  for (const op of operations) {
    // The warm-up is recorded: the floor replays exactly its calls, request by request, over as many requests as are
    // measured (so a call the operation makes only now and then weighs on the floor as often as on the handler).
    const recording = await recordSteps(doc, async (next) => {
      // One more than is replayed: the first request (cold data-key cache, its unwrap) is left out of the floor.
      for (let i = 0; i < Math.max(options.warmup, options.requests + 1); i++) {
        next();
        await callHandler(op)(handlerInput(op)());
      }
    });
    recordings[op] = recording.slice(-options.requests);
    floors[op] = makeFloor(floorDoc, recordings[op]);
    mark(`${op} recorded`);
    // The floor runs the SDK code the handler has just warmed up: a shorter warm-up of its own is enough.
    await pass(Math.ceil(options.warmup / 2), (i) => i, floors[op].request);
  }
  if (options.profile?.side === 'stub') {
    // The handler's own work alone: every DynamoDB request answered from the recording, in memory.
    const restore = stubSends(doc, recordings[options.profile.operation], options.warmup);
    await pass(options.warmup, handlerInput(options.profile.operation), callHandler(options.profile.operation));
    restore();
    stubSends(doc, recordings[options.profile.operation], options.requests);
  }
  if (options.profile) return profile(options.profile, options.requests, handlerInput, callHandler, floors);
  const rounds: Record<Operation, Round[]> = { revealById: [], listSecrets: [] };
  for (let r = 0; r < options.rounds; r++) {
    // Idle CPU is under 1% of a core here; its rate over one second is subtracted for each pass's length.
    const idle = await idleCpuRate(1000);
    for (const op of operations) {
      const { handler: h, floor: f } = await alternate(options.requests, handlerInput(op), callHandler(op), floors[op].request);
      mark(
        `${op}: handler ${(h.cpuMs / options.requests).toFixed(3)} ms (system ${(h.systemMs / options.requests).toFixed(3)}), floor ${(f.cpuMs / options.requests).toFixed(3)} ms (system ${(f.systemMs / options.requests).toFixed(3)})`,
      );
      rounds[op].push({
        cpuMs: (h.cpuMs - idle * h.wallMs) / options.requests,
        floorCpuMs: (f.cpuMs - idle * f.wallMs) / options.requests,
        idleCpuMsPerSecond: idle * 1000,
        handlerWallMs: h.wallMs,
        floorWallMs: f.wallMs,
      });
    }
  }
  mark('measured');
  const own = {} as Record<Operation, number>;
  for (const op of operations) own[op] = await ownWork(doc, recordings[op], options, handlerInput(op), callHandler(op));
  mark('own work measured');
  return Object.fromEntries(
    operations.map((op) => [op, { ...summarize(rounds[op], options.requests, floors[op].describe()), ownCpuMsPerRequest: own[op] }]),
  );
}

/**
 * The handler's own work: CPU ms per request with every DynamoDB request answered in memory from the recording
 * (no SDK, no network), the median of the rounds. What remains of the handler above the floor, without the noise
 * of the I/O around it.
 */
async function ownWork<T>(
  doc: Parameters<typeof stubSends>[0],
  recording: Recording,
  options: ChildOptions,
  make: () => T,
  run: (input: T) => Promise<unknown>,
) {
  const restore = stubSends(doc, recording, options.warmup + options.rounds * options.requests);
  try {
    await pass(options.warmup, make, run);
    const rounds: number[] = [];
    for (let r = 0; r < options.rounds; r++) rounds.push((await pass(options.requests, make, run)).cpuMs / options.requests);
    return round3(median(rounds));
  } finally {
    restore();
  }
}

/** The medians over the rounds (each figure's own median, and the median of the rounds' ratios). */
function summarize(rounds: Round[], requests: number, floorCalls: string[]) {
  return {
    cpuMsPerRequest: round3(median(rounds.map((r) => r.cpuMs))),
    floorCpuMsPerRequest: round3(median(rounds.map((r) => r.floorCpuMs))),
    cpuFloorRatio: Math.round(median(rounds.map((r) => r.cpuMs / r.floorCpuMs)) * 100) / 100,
    requests,
    rounds: rounds.length,
    idleCpuMsPerSecond: round3(median(rounds.map((r) => r.idleCpuMsPerSecond))),
    handlerMsPerRequest: round3(median(rounds.map((r) => r.handlerWallMs / requests))),
    floorMsPerRequest: round3(median(rounds.map((r) => r.floorWallMs / requests))),
    floorCalls,
    /** Floor requests answered with a failed condition (bench/cpu-floor.ts `sendFloor`), across the child so far. */
    floorRefusals,
  };
}

/** Profile mode: the V8 sampling profiler over the measured requests only (not the start-up, seeding or warm-up). */
async function profile(
  target: NonNullable<ChildOptions['profile']>,
  requests: number,
  handlerInput: (op: Operation) => () => { event: APIGatewayProxyEventV2; context: Context },
  callHandler: (op: Operation) => (input: { event: APIGatewayProxyEventV2; context: Context }) => Promise<unknown>,
  floors: Record<Operation, { request(i: number): Promise<void> }>,
) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const measured =
    target.side !== 'floor'
      ? await pass(requests, handlerInput(target.operation), callHandler(target.operation))
      : await pass(requests, (i) => i, floors[target.operation].request);
  const { profile: cpuProfile } = await session.post('Profiler.stop');
  writeFileSync(target.file, JSON.stringify(cpuProfile));
  session.disconnect();
  return { ...measured, cpuMsPerRequest: measured.cpuMs / requests };
}

const options = JSON.parse(process.env.CPU_BENCH_OPTIONS ?? '{}') as ChildOptions;
main(options).then(
  (result) => process.send!({ result }, () => process.exit(0)),
  (error: unknown) => process.send!({ error: error instanceof Error ? error.stack : String(error) }, () => process.exit(1)),
);
