import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The child process of one local rotation function invocation (local-functions.ts): it takes the invocation over the
 * IPC channel, imports the handler file, calls the export with the event and a Lambda-like context, and reports over
 * the same channel, so nothing the function prints can be taken for its result. Errors are reported as Lambda's Node
 * runtime names them (`Runtime.ImportModuleError`, `Runtime.HandlerNotFound`, or the thrown error's name).
 */

/** What the parent sends. */
export interface RunnerInvocation {
  handler: string;
  export: string;
  functionName: string;
  arn: string;
  event: unknown;
  /** When the parent kills the process (epoch ms), for `getRemainingTimeInMillis`. */
  deadline: number;
}

/** What the child reports. */
export type RunnerReport = { ok: true } | { ok: false; errorType: string; errorMessage: string };

const failure = (errorType: string, error: unknown): RunnerReport => ({
  ok: false,
  errorType,
  errorMessage: error instanceof Error ? error.message : String(error),
});

/** The export to call (a CommonJS module's `module.exports` names are among its named exports too). */
async function load(invocation: RunnerInvocation): Promise<((event: unknown, context: unknown) => unknown) | RunnerReport> {
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(invocation.handler).href);
  } catch (error) {
    return failure('Runtime.ImportModuleError', error);
  }
  const handler = module[invocation.export];
  if (typeof handler !== 'function') {
    return failure('Runtime.HandlerNotFound', `${basename(invocation.handler)}.${invocation.export} is undefined or not exported`);
  }
  return handler as (event: unknown, context: unknown) => unknown;
}

/** Lambda's context, as much of it as a rotation function reads. */
function contextOf(invocation: RunnerInvocation) {
  return {
    functionName: invocation.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: invocation.arn,
    memoryLimitInMB: '128',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${invocation.functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, invocation.deadline - Date.now()),
  };
}

async function run(invocation: RunnerInvocation): Promise<RunnerReport> {
  const handler = await load(invocation);
  if (typeof handler !== 'function') return handler;
  try {
    await handler(invocation.event, contextOf(invocation));
    return { ok: true };
  } catch (error) {
    return failure(error instanceof Error ? error.name : 'Error', error);
  }
}

if (import.meta.main) {
  if (!process.send) {
    process.stderr.write('function-runner: run by the local stack only (it needs an IPC channel)\n');
    process.exit(2);
  }
  // The stack is gone (stopped, crashed): nobody waits for the result, and nobody would kill a function that hangs.
  process.once('disconnect', () => process.exit(1));
  process.once('message', (invocation: RunnerInvocation) => {
    // Exits once reported, as Lambda freezes the sandbox: a handle the function left open does not hold the result.
    void run(invocation).then((report) => process.send!(report, () => process.exit(0)));
  });
}
