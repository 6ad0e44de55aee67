import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { logger } from '../../shared/platform/logger.ts';
import {
  failedOutcome,
  timedOutOutcome,
  type FunctionInvoker,
  type InvokeOutcome,
  type RotationEvent,
} from '../../shared/rotation/index.ts';
import { attributeCalls } from './instrumentation.ts';
import type { RunnerInvocation, RunnerReport } from './function-runner.ts';
import { readVersionedRecord, writeJsonAtomic } from './json-file.ts';

/**
 * Rotation functions on the local stack (decisions.md v1.3, "Where functions run"): stand-ins registered with
 * `npm run admin -- function add`, kept in LOCAL_DIR/functions.json (mode 600: their variables may hold
 * credentials), each answering for `arn:aws:lambda:us-east-1:000000000000:function:NAME`. An invocation runs the
 * handler in a child Node process (function-runner.ts) whose environment is only PATH, HOME, the registered variables,
 * AWS_REGION and SECRETS_MANAGER_ENDPOINT, so nothing of the stack's own environment (credentials) reaches it.
 */

export const FUNCTIONS_FILE = 'functions.json';
export const LOCAL_FUNCTION_ARN_PREFIX = 'arn:aws:lambda:us-east-1:000000000000:function:';
/** The variables every invocation is given; a registration may not set them. */
const STACK_VARIABLES = ['AWS_REGION', 'SECRETS_MANAGER_ENDPOINT'];
const RUNNER = fileURLToPath(new URL('./function-runner.ts', import.meta.url));

/** One registered function: its handler file (absolute), the export to call, and its variables. */
export interface LocalFunction {
  handler: string;
  export: string;
  env: Record<string, string>;
}

interface FunctionsFile {
  version: 1;
  functions: Record<string, LocalFunction>;
}

/** A registration that Lambda (or the local stack) would refuse; the admin command prints it with its usage. */
export class InvalidFunctionError extends Error {}

/** The ARN a registered function answers for. */
/** The scope an invocation of a stand-in is reported under (instrumentation.ts): the bench bills its wall time apart. */
export const LOCAL_FUNCTION_SCOPE = 'rotation-function';

export const localFunctionArn = (name: string) => `${LOCAL_FUNCTION_ARN_PREFIX}${name}`;

/** The registered functions of `localDir`, read afresh (none yet: an empty record). */
export async function readLocalFunctions(localDir: string): Promise<Record<string, LocalFunction>> {
  return readVersionedRecord<LocalFunction>(join(localDir, FUNCTIONS_FILE), 'functions', 'local functions file');
}

/** The name check of Lambda's function names. */
function assertFunctionName(name: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
    throw new InvalidFunctionError(`--name: 1 to 64 letters, digits, hyphens or underscores (a Lambda function name); got "${name}"`);
}

/** The handler must be a file that exists, and the export a JavaScript name. */
function assertHandler(handler: string, exportName: string): void {
  let isFile = false;
  try {
    isFile = statSync(handler).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) throw new InvalidFunctionError(`--handler: no such file: ${handler}`);
  if (!/^[A-Za-z_$][\w$]*$/.test(exportName)) throw new InvalidFunctionError(`--handler: "${exportName}" is not an export name`);
}

/** Variable names as Lambda takes them, none of those the stack sets for every invocation. */
function assertVariables(env: Record<string, string>): void {
  for (const name of Object.keys(env)) {
    if (!/^[A-Za-z][A-Za-z0-9_]+$/.test(name)) throw new InvalidFunctionError(`--env: "${name}" is not a variable name`);
    if (STACK_VARIABLES.includes(name)) throw new InvalidFunctionError(`--env: ${name} is set by the local stack`);
  }
}

/** What is shown of a function: never its variables' values, only their names. */
const describeFunction = (name: string, fn: LocalFunction) => ({
  name,
  arn: localFunctionArn(name),
  handler: fn.handler,
  export: fn.export,
  env: Object.keys(fn.env),
});

/** Registers (or replaces) a function; answers what `function list` shows of it. */
export async function registerLocalFunction(
  localDir: string,
  input: { name: string; handler: string; export?: string; env: Record<string, string> },
) {
  assertFunctionName(input.name);
  const fn: LocalFunction = { handler: resolve(input.handler), export: input.export ?? 'handler', env: { ...input.env } };
  assertHandler(fn.handler, fn.export);
  assertVariables(fn.env);
  const functions = { ...(await readLocalFunctions(localDir)), [input.name]: fn };
  await writeJsonAtomic(join(localDir, FUNCTIONS_FILE), { version: 1, functions } satisfies FunctionsFile);
  return describeFunction(input.name, fn);
}

/** The registered functions as `function list` shows them. */
export async function listLocalFunctions(localDir: string) {
  return Object.entries(await readLocalFunctions(localDir)).map(([name, fn]) => describeFunction(name, fn));
}

/** The registered function an ARN names, if any. */
async function functionOf(localDir: string, arn: string): Promise<[string, LocalFunction] | undefined> {
  if (!arn.startsWith(LOCAL_FUNCTION_ARN_PREFIX)) return undefined;
  const name = arn.slice(LOCAL_FUNCTION_ARN_PREFIX.length);
  const functions = await readLocalFunctions(localDir);
  return Object.hasOwn(functions, name) ? [name, functions[name]!] : undefined;
}

/** The child's whole environment: nothing of this process's but PATH and HOME. */
export function childEnvironment(fn: LocalFunction, baseUrl: string, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const inherited = Object.fromEntries(['PATH', 'HOME'].flatMap((name) => (parent[name] === undefined ? [] : [[name, parent[name]]])));
  return { ...inherited, ...fn.env, AWS_REGION: 'us-east-1', SECRETS_MANAGER_ENDPOINT: baseUrl };
}

/** The function's own output, line by line, to the stack's log at debug: never taken for its result. */
function forwardOutput(stream: NodeJS.ReadableStream, name: string, kind: 'stdout' | 'stderr'): void {
  const log = logger.child({ component: 'local-function', functionName: name, stream: kind });
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => log.debug(line.slice(0, 8_192)));
}

/** Runs one invocation in a child process; answers its outcome, never throws. */
function runInChild(name: string, fn: LocalFunction, event: RotationEvent, timeoutMs: number, baseUrl: string) {
  return new Promise<InvokeOutcome>((settle) => {
    let report: RunnerReport | undefined;
    let timedOut = false;
    const child = spawn(process.execPath, [RUNNER], {
      env: childEnvironment(fn, baseUrl),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    forwardOutput(child.stdout!, name, 'stdout');
    forwardOutput(child.stderr!, name, 'stderr');
    child.on('message', (message) => void (report ??= message as RunnerReport));
    child.on('error', (error) => {
      clearTimeout(timer);
      settle(failedOutcome('Runtime.SpawnError', error.message));
    });
    // `close`: the process ended and its output was read to the end.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return settle(timedOutOutcome(timeoutMs));
      if (report) return settle(report.ok ? { ok: true } : failedOutcome(report.errorType, report.errorMessage));
      settle(
        failedOutcome('Runtime.ExitError', `the process exited without a result (${signal ? `signal ${signal}` : `exit code ${code}`})`),
      );
    });
    const invocation: RunnerInvocation = {
      handler: fn.handler,
      export: fn.export,
      functionName: name,
      arn: localFunctionArn(name),
      event,
      deadline: Date.now() + timeoutMs,
    };
    child.send(invocation, (error) => error && child.kill('SIGKILL'));
  });
}

/**
 * The local stand-in for Lambda: registered functions only, each invocation a fresh child process. Which may be
 * invoked is the secrets service's question (shared/rotation/rotation-functions.ts reads the same registry); an ARN of
 * no registered function is Lambda's ResourceNotFoundException here.
 */
export function makeLocalFunctionInvoker(options: { localDir: string; baseUrl: string }): FunctionInvoker {
  return {
    async invoke(arn, event, timeoutMs) {
      try {
        // Read afresh each time, so a function registered while the stack runs is seen.
        const found = await functionOf(options.localDir, arn);
        if (!found) return failedOutcome('ResourceNotFoundException', `Function not found: ${arn}`);
        return await attributeCalls(LOCAL_FUNCTION_SCOPE, () => runInChild(found[0], found[1], event, timeoutMs, options.baseUrl));
      } catch (error) {
        const e = error as { name?: unknown; message?: unknown } | null;
        return failedOutcome(String(e?.name ?? 'Error'), String(e?.message ?? error));
      }
    },
  };
}

/** `FILE[#export]`: the export after the last `#`, `handler` when there is none. */
export function parseHandlerSpec(spec: string): { handler: string; export?: string } {
  const at = spec.lastIndexOf('#');
  return at < 0 ? { handler: spec } : { handler: spec.slice(0, at), export: spec.slice(at + 1) };
}

/** Repeated `--env K=V` as one record; a name given twice is a mistake, not a silent overwrite. */
export function parseVariables(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [index, pair] of pairs.entries()) {
    const at = pair.indexOf('=');
    // Not quoted back: a value given without its name would be printed.
    if (at <= 0) throw new InvalidFunctionError(`--env: expected NAME=VALUE (--env number ${index + 1} is not)`);
    const name = pair.slice(0, at);
    if (Object.hasOwn(env, name)) throw new InvalidFunctionError(`--env: ${name} given twice`);
    env[name] = pair.slice(at + 1);
  }
  return env;
}

/** `function add` and `function list` of the admin CLI (local stack only: the caller refuses `--table`). */
export async function runFunctionCommand(
  localDir: string,
  command: string,
  flags: { name?: string | undefined; handler?: string | undefined; env?: string[] | undefined },
): Promise<unknown> {
  if (command === 'list') return { functions: await listLocalFunctions(localDir) };
  if (command !== 'add') throw new InvalidFunctionError(`Unknown command: function ${command}`);
  if (!flags.name || !flags.handler) throw new InvalidFunctionError('function add: --name and --handler are required');
  const spec = parseHandlerSpec(flags.handler);
  return registerLocalFunction(localDir, { name: flags.name, ...spec, env: parseVariables(flags.env ?? []) });
}
