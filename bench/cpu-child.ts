import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { lambdaContext } from './cpu-events.ts';
import { floorRefusals, makeFloor, recordSteps, stubSends, type Recording } from './cpu-floor.ts';
import { gcPauses, invoke, median, pass, round3, timed, type Timed } from './cpu-passes.ts';
import { OPERATIONS, subjectsOf, type Operation, type Subject } from './cpu-subjects.ts';

export type { Operation } from './cpu-subjects.ts';

/**
 * The child process of bench/cpu.ts: nothing runs here but the handler (or its floor) and this loop, so the process
 * CPU counters (process.cpuUsage: user + system) measure the handler's own work. DynamoDB Local is another process.
 *
 * It imports the real handler modules, exactly as Lambda does: the secrets route group's, functions/secrets/handler.ts
 * (and, when an AWS operation is measured, the AWS API's, functions/aws/handler.ts: bench/cpu-aws.ts), configured
 * from the environment the parent sets: the table on DynamoDB Local and LOCAL_KEYRING_FILE, the local keyring
 * standing in for KMS (as under `npm start`). Nothing else is loaded in the process before them: no AWS call
 * observer (bin/local/instrumentation.ts) and no HTTP front, so the handlers run as they do in Lambda. The events
 * of a pass are made before its clock starts (an AWS one is signed then, bench/cpu-subjects.ts `ready`).
 */

export interface ChildOptions {
  /** Measured requests per round and side, and warm-up requests (an operation runs its `share` of them). */
  requests: number;
  warmup: number;
  rounds: number;
  /** Secrets in the listed environment (the page a list answers). */
  listSize: number;
  /** Secrets a BatchGetSecretValue asks for. */
  batchSecrets: number;
  /** What to measure (default: every operation of bench/cpu-subjects.ts). */
  operations?: Operation[];
  /** Profile mode: only this operation's handler (or floor) for `requests` requests, profiled into `file`. */
  profile?: { operation: Operation; side: 'handler' | 'floor' | 'stub'; file: string };
  /** The floor sends each command alone, as before 9def0f6 (bench/cpu-floor.ts `makeFloor`). */
  sequentialFloor?: boolean;
}

/** One round of an operation: CPU ms per request of the handler and of the floor, idle CPU already subtracted. */
interface Round {
  cpuMs: number;
  floorCpuMs: number;
  idleCpuMsPerSecond: number;
  handlerWallMs: number;
  floorWallMs: number;
  /** Garbage-collection pauses per request within each side's blocks (part of their CPU). */
  gcMs: number;
  floorGcMs: number;
}

/** An operation's requests per round and its warm-up: its share of the options' (bench/cpu-subjects.ts `share`). */
const countsOf = (subject: Subject, options: ChildOptions) => ({
  requests: Math.max(BLOCK, Math.round(options.requests * subject.share)),
  warmup: Math.max(BLOCK, Math.round(options.warmup * subject.share)),
  rounds: options.rounds,
});

type Counts = ReturnType<typeof countsOf>;
type Input = { event: APIGatewayProxyEventV2; context: Context };

/** Events made ready at a time while recording (untimed). */
const READY_AHEAD = 250;

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
  const sum = { handler: { cpuMs: 0, systemMs: 0, wallMs: 0, gcMs: 0 }, floor: { cpuMs: 0, systemMs: 0, wallMs: 0, gcMs: 0 } };
  const spans: Record<'handler' | 'floor', [number, number][]> = { handler: [], floor: [] };
  const add = async (side: 'handler' | 'floor', run: () => Promise<Timed>) => {
    const started = performance.now();
    const part = await run();
    spans[side].push([started, performance.now()]);
    sum[side].cpuMs += part.cpuMs;
    sum[side].systemMs += part.systemMs;
    sum[side].wallMs += part.wallMs;
  };
  globalThis.gc?.();
  const pauses = gcPauses();
  for (let start = 0; start < n; start += BLOCK) {
    await add('handler', () => timed(inputs.slice(start, start + BLOCK), handler));
    await add('floor', () => timed(floorInputs.slice(start, start + BLOCK), floor));
  }
  // Which side's blocks the collector's pauses fell in: the handler's garbage can be collected in a floor block.
  sum.handler.gcMs = await pauses.msWithin(spans.handler);
  sum.floor.gcMs = await pauses.msWithin(spans.floor);
  pauses.stop();
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
  const operations: Operation[] = options.profile ? [options.profile.operation] : (options.operations ?? [...OPERATIONS]);
  const { doc, subjects } = await subjectsOf(operations, options);
  mark('seeded');
  const { makeDocumentClient } = await import('../shared/platform/clients/dynamodb.ts');
  const floorDoc = makeDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const counts = Object.fromEntries(operations.map((op) => [op, countsOf(subjects[op], options)])) as Record<Operation, Counts>;
  const callHandler = (op: Operation) => (input: Input) => invoke(subjects[op].handler, input.event, input.context, 200);
  /** The inputs of `op`'s next `n` requests, made ready ahead (AWS's signed now): answers their maker. */
  const handlerInput = async (op: Operation, n: number) => {
    await subjects[op].ready(n);
    return (): Input => ({ event: subjects[op].event(), context: lambdaContext() });
  };
  const floors = {} as Record<Operation, ReturnType<typeof makeFloor>>;
  const recordings = {} as Record<Operation, Recording>;
  for (const op of operations) {
    const { requests, warmup } = counts[op];
    // The warm-up is recorded: the floor replays exactly its calls, request by request, over as many requests as are
    // measured (so a call the operation makes only now and then weighs on the floor as often as on the handler).
    // One more than is replayed: the first request (cold data-key cache, its unwrap) is left out of the floor.
    const recorded = Math.max(warmup, requests + 1);
    const recording = await recordSteps(doc, async (next) => {
      // Events made a few hundred at a time: signed ones must not outlive X-Amz-Date's 5 minutes on a slow machine.
      for (let start = 0; start < recorded; start += READY_AHEAD) {
        const n = Math.min(READY_AHEAD, recorded - start);
        const make = await handlerInput(op, n);
        for (let i = 0; i < n; i++) {
          next();
          await callHandler(op)(make());
        }
      }
    });
    recordings[op] = recording.slice(-requests);
    floors[op] = makeFloor(floorDoc, recordings[op], { sequential: options.sequentialFloor });
    mark(`${op} recorded`);
    // The floor runs the SDK code the handler has just warmed up: a shorter warm-up of its own is enough.
    await pass(Math.ceil(warmup / 2), (i) => i, floors[op].request);
  }
  if (options.profile) return profile(options.profile, doc, recordings, counts, handlerInput, callHandler, floors);
  const rounds = Object.fromEntries(operations.map((op) => [op, []])) as unknown as Record<Operation, Round[]>;
  for (let r = 0; r < options.rounds; r++) {
    // Idle CPU is under 1% of a core here; its rate over one second is subtracted for each pass's length.
    const idle = await idleCpuRate(1000);
    for (const op of operations) {
      const { requests } = counts[op];
      const make = await handlerInput(op, requests);
      const { handler: h, floor: f } = await alternate(requests, make, callHandler(op), floors[op].request);
      mark(
        `${op}: handler ${(h.cpuMs / requests).toFixed(3)} ms (system ${(h.systemMs / requests).toFixed(3)}), floor ${(f.cpuMs / requests).toFixed(3)} ms (system ${(f.systemMs / requests).toFixed(3)})`,
      );
      rounds[op].push({
        cpuMs: (h.cpuMs - idle * h.wallMs) / requests,
        floorCpuMs: (f.cpuMs - idle * f.wallMs) / requests,
        idleCpuMsPerSecond: idle * 1000,
        handlerWallMs: h.wallMs,
        floorWallMs: f.wallMs,
        gcMs: h.gcMs / requests,
        floorGcMs: f.gcMs / requests,
      });
    }
  }
  mark('measured');
  const own = {} as Record<Operation, number>;
  for (const op of operations) own[op] = await ownWork(doc, recordings[op], counts[op], (n) => handlerInput(op, n), callHandler(op));
  mark('own work measured');
  return Object.fromEntries(
    operations.map((op) => [op, { ...summarize(rounds[op], counts[op].requests, floors[op].describe()), ownCpuMsPerRequest: own[op] }]),
  );
}

/**
 * The handler's own work: CPU ms per request with every DynamoDB request answered in memory from the recording
 * (no SDK, no network), the median of the rounds. What remains of the handler above the floor, without the noise
 * of the I/O around it.
 */
async function ownWork(
  doc: Parameters<typeof stubSends>[0],
  recording: Recording,
  counts: Counts,
  ready: (n: number) => Promise<() => Input>,
  run: (input: Input) => Promise<unknown>,
) {
  const restore = stubSends(doc, recording, counts.warmup + counts.rounds * counts.requests);
  try {
    await pass(counts.warmup, await ready(counts.warmup), run);
    const rounds: number[] = [];
    for (let r = 0; r < counts.rounds; r++) {
      rounds.push((await pass(counts.requests, await ready(counts.requests), run)).cpuMs / counts.requests);
    }
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
    gcMsPerRequest: round3(median(rounds.map((r) => r.gcMs))),
    floorGcMsPerRequest: round3(median(rounds.map((r) => r.floorGcMs))),
    floorCalls,
    /** Floor requests answered with a failed condition (bench/cpu-floor.ts `sendFloor`), across the child so far. */
    floorRefusals,
  };
}

/**
 * Profile mode: the V8 sampling profiler over the measured requests only (not the start-up, seeding or warm-up).
 * `stub` profiles the handler with every DynamoDB request answered from its recording, in memory: its own work.
 */
async function profile(
  target: NonNullable<ChildOptions['profile']>,
  doc: Parameters<typeof stubSends>[0],
  recordings: Record<Operation, Recording>,
  counts: Record<Operation, Counts>,
  handlerInput: (op: Operation, n: number) => Promise<() => Input>,
  callHandler: (op: Operation) => (input: Input) => Promise<unknown>,
  floors: Record<Operation, { request(i: number): Promise<void> }>,
) {
  const { operation, side } = target;
  const { requests, warmup } = counts[operation];
  if (side === 'stub') {
    const restore = stubSends(doc, recordings[operation], warmup);
    await pass(warmup, await handlerInput(operation, warmup), callHandler(operation));
    restore();
    stubSends(doc, recordings[operation], requests);
  }
  const make = side === 'floor' ? (i: number) => i : await handlerInput(operation, requests);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const measured =
    side !== 'floor'
      ? await pass(requests, make as () => Input, callHandler(operation))
      : await pass(requests, (i) => i, floors[operation].request);
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
