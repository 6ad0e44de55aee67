import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { addClientHooks } from '../shared/platform/clients/hooks.ts';
import { apiEvent, lambdaContext } from './cpu-events.ts';
import { recordSteps, stubSendsOf, type Recording } from './cpu-floor.ts';
import { invoke, median, round3, timed, type Handler } from './cpu-passes.ts';
import { seedWorkspace } from './cpu-seed.ts';
import { callsOf, compareCalls, freshCredentials, readsOf } from './scope-calls.ts';
import { fiftyRules } from './scope-rules.ts';

/**
 * The child process of bench/cpu.ts's `measureScopeCpu`: what a key's 50 rules cost the handler of the secrets
 * route group, against a key without rules, for a reveal by id, a write and a bulk load. Each operation is run with
 * both keys over DynamoDB Local and recorded (DynamoDB requests, and the KMS stand-in's calls through the client
 * hooks), then measured in "own work" mode: every DynamoDB request answered in memory from its key's recording, the
 * two keys taking turns every few requests, so the figures compare the handler's CPU alone.
 */

export interface ScopeChildOptions {
  /** Measured requests per round and key, at least (more when they take less than `passMs`). */
  requests: number;
  /** CPU ms each key's share of a round should last at least. */
  passMs: number;
  /** Real requests before recording (the keys' leases, the data-key cache, the compiled policies warm up). */
  warmup: number;
  rounds: number;
  /** Real requests recorded per operation and key (the stubs cycle through them). */
  recorded: number;
  /** Secrets in the environment (the bulk load's page). */
  listSize: number;
}

export type ScopeOperation = 'revealById' | 'writeSecret' | 'loadEnvironment';
export const CREDENTIALS = ['unscoped', 'fiftyRules'] as const;
export type Credential = (typeof CREDENTIALS)[number];

/** The keys' tokens, and each operation's event of request `i` with a token. */
async function seed(listSize: number) {
  const ws = await seedWorkspace(listSize);
  const { handler: accessKeys } = await import('../functions/access-keys/handler.ts');
  const createKey = async (name: string, permissions?: unknown) =>
    (
      await ws.call(
        accessKeys as Handler,
        'POST /api/v1/access-keys',
        ws.withBody(ws.apiKey, { name, ...(permissions ? { permissions } : {}) }),
        201,
      )
    ).token as string;
  const tokens: Record<Credential, string> = {
    unscoped: await createKey('unscoped'),
    fiftyRules: await createKey('fifty rules', fiftyRules(ws.project.slug, ws.environment.slug)),
  };
  const envId = ws.environment.id;
  const events: Record<ScopeOperation, (token: string, i: number) => APIGatewayProxyEventV2> = {
    revealById: (token) => apiEvent('POST /api/v1/secrets/{secretId}/reveal', token, { pathParameters: { secretId: ws.secret.id } }),
    writeSecret: (token, i) =>
      apiEvent('PUT /api/v1/environments/{envId}/secrets', token, {
        pathParameters: { envId },
        ...ws.withBody(token, { key: 'WRITTEN_BY_BENCH', value: `value-${i}-${'x'.repeat(40)}` }),
      }),
    loadEnvironment: (token) =>
      apiEvent('POST /api/v1/environments/{envId}/secrets/reveal', token, { pathParameters: { envId }, ...ws.withBody(token, {}) }),
  };
  return { handler: ws.handler, doc: ws.doc, tokens, events };
}

/** Real requests of one operation with one key; the last `options.recorded` are kept, with their KMS calls. */
async function record(run: (i: number) => Promise<unknown>, doc: Parameters<typeof recordSteps>[0], options: ScopeChildOptions) {
  const kms: string[][] = [];
  const removeHook = addClientHooks({ standInCall: (service, operation) => kms.at(-1)?.push(`${service} ${operation}`) });
  try {
    const recording = await recordSteps(doc, async (next) => {
      for (let i = 0; i < options.warmup + options.recorded; i++) {
        next();
        kms.push([]);
        await run(i);
      }
    });
    return { recording: recording.slice(-options.recorded), kms: kms.slice(-options.recorded) };
  } finally {
    removeHook();
  }
}

async function main(options: ScopeChildOptions) {
  const { handler, doc, tokens, events } = await seed(options.listSize);
  const operations: ScopeOperation[] = ['revealById', 'loadEnvironment', 'writeSecret'];
  const results: Record<string, unknown> = {};
  let serial = 0;
  for (const op of operations) {
    // Own work makes the events ahead of its timed loops, as bench/cpu-child.ts does.
    const input = (credential: Credential) => (i: number) => ({
      event: events[op](tokens[credential], serial + i),
      context: lambdaContext(),
    });
    const call = (made: ReturnType<ReturnType<typeof input>>) => invoke(handler, made.event, made.context, 200);
    const recorded = {} as Record<Credential, { recording: Recording; kms: string[][] }>;
    for (const credential of CREDENTIALS) {
      recorded[credential] = await record((i) => call(input(credential)(i)), doc, options);
      serial += options.warmup + options.recorded;
      freshCredentials(recorded[credential].recording);
    }
    const own = await ownWork(doc, recorded, options, input, call);
    const calls = Object.fromEntries(CREDENTIALS.map((c) => [c, callsOf(recorded[c].recording, recorded[c].kms)]));
    const reads = Object.fromEntries(CREDENTIALS.map((c) => [c, readsOf(recorded[c].recording)]));
    results[op] = {
      ownCpuMsPerRequest: own.ms,
      ratio: own.ratio,
      rounds: options.rounds,
      requests: own.requests,
      calls,
      callsIdentical: compareCalls(calls.unscoped!, calls.fiftyRules!),
      reads,
    };
  }
  return results;
}

/** Requests per turn when the keys take turns: small, so that a change of load around them hits both alike. */
const BLOCK = 5;

/**
 * Own-work CPU per request of each key, its recording answering every DynamoDB request: the keys take turns every
 * `BLOCK` requests (the first to go alternating round by round), as the handler and its floor do in
 * bench/cpu-child.ts. The median of each key's rounds, and the median of the rounds' ratios.
 */
async function ownWork(
  doc: Parameters<typeof stubSendsOf>[0],
  recorded: Record<Credential, { recording: Recording }>,
  options: ScopeChildOptions,
  input: (credential: Credential) => (i: number) => { event: APIGatewayProxyEventV2; context: Context },
  call: (made: { event: APIGatewayProxyEventV2; context: Context }) => Promise<unknown>,
) {
  const round = async (n: number, first: number): Promise<Record<Credential, number>> => {
    const stubs = stubSendsOf(doc, { unscoped: recorded.unscoped.recording, fiftyRules: recorded.fiftyRules.recording }, n);
    const inputs = Object.fromEntries(CREDENTIALS.map((c) => [c, Array.from({ length: n }, (_, i) => input(c)(i))])) as Record<
      Credential,
      ReturnType<ReturnType<typeof input>>[]
    >;
    const cpuMs = { unscoped: 0, fiftyRules: 0 };
    const order = first ? [...CREDENTIALS].reverse() : [...CREDENTIALS];
    globalThis.gc?.();
    try {
      for (let start = 0; start < n; start += BLOCK) {
        for (const credential of order) {
          stubs.use(credential);
          cpuMs[credential] += (await timed(inputs[credential].slice(start, start + BLOCK), call)).cpuMs;
        }
      }
    } finally {
      stubs.restore();
    }
    return { unscoped: cpuMs.unscoped / n, fiftyRules: cpuMs.fiftyRules / n };
  };
  // The warm-up round also tells how many requests make a round of `passMs` per key.
  const warm = await round(options.requests, 0);
  const n = Math.max(options.requests, Math.ceil(options.passMs / Math.max(warm.unscoped, warm.fiftyRules)));
  const rounds: Record<Credential, number>[] = [];
  for (let r = 0; r < options.rounds; r++) {
    rounds.push(await round(n, r % 2));
    if (process.env.CPU_BENCH_VERBOSE) process.stderr.write(`round ${r}: ${JSON.stringify(rounds.at(-1))}\n`);
  }
  return {
    ms: Object.fromEntries(CREDENTIALS.map((c) => [c, round3(median(rounds.map((r) => r[c])))])) as Record<Credential, number>,
    ratio: round3(median(rounds.map((r) => r.fiftyRules / r.unscoped))),
    requests: n,
  };
}

const options = JSON.parse(process.env.CPU_BENCH_OPTIONS ?? '{}') as ScopeChildOptions;
main(options).then(
  (result) => process.send!({ result }, () => process.exit(0)),
  (error: unknown) => process.send!({ error: error instanceof Error ? error.stack : String(error) }, () => process.exit(1)),
);
