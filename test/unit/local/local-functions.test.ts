import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { RunnerInvocation } from '../../../bin/local/function-runner.ts';
import { runAdmin, UsageError } from '../../../bin/admin.ts';
import {
  FUNCTIONS_FILE,
  listLocalFunctions,
  localFunctionArn,
  makeLocalFunctionInvoker,
  parseHandlerSpec,
  registerLocalFunction,
} from '../../../bin/local/local-functions.ts';
import type { RotationEvent } from '../../../shared/rotation/function-invoker.ts';
import { rotationFunctionsAllowed } from '../../../shared/rotation/rotation-functions.ts';
import { waitFor } from './support.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'support', 'functions');
const BASE_URL = 'http://127.0.0.1:4999';
const EVENT: RotationEvent = {
  SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:db-AbCdEf',
  ClientRequestToken: 'tok-1',
  Step: 'testSecret',
};

const localDir = () => mkdtempSync(join(tmpdir(), 'local-functions-'));
const fixture = (name: string) => join(FIXTURES, name);

/** Kills the process whose pid the file holds, if it still runs (a failed test must not leave a hanging one behind). */
function killIfAlive(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  } catch {
    // Already gone, as it should be.
  }
}

/** A stack folder with one function registered, and its invoker. */
async function withFunction(handler: string, options: { export?: string; env?: Record<string, string> } = {}) {
  const dir = localDir();
  await registerLocalFunction(dir, { name: 'rotate-db', handler: fixture(handler), env: options.env ?? {}, ...options });
  return { dir, invoker: makeLocalFunctionInvoker({ localDir: dir, baseUrl: BASE_URL }), arn: localFunctionArn('rotate-db') };
}

describe('local rotation functions: the registry', () => {
  it('registers a function under its ARN, in a file only its owner reads, and allows only registered ARNs', async () => {
    // Prepare
    const dir = localDir();
    const allowed = rotationFunctionsAllowed({ LOCAL_ROTATION_FUNCTIONS_FILE: join(dir, FUNCTIONS_FILE) });
    const before = await allowed(localFunctionArn('rotate-db'), 'ws_1');
    // Act
    const added = await registerLocalFunction(dir, { name: 'rotate-db', handler: fixture('succeeds.ts'), env: { DB_PASSWORD: 'p' } });
    // Assess
    expect(before).toBe(false);
    expect(added).toEqual({
      name: 'rotate-db',
      arn: 'arn:aws:lambda:us-east-1:000000000000:function:rotate-db',
      handler: fixture('succeeds.ts'),
      export: 'handler',
      env: ['DB_PASSWORD'],
    });
    expect(statSync(join(dir, FUNCTIONS_FILE)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, FUNCTIONS_FILE), 'utf8'))).toEqual({
      version: 1,
      functions: { 'rotate-db': { handler: fixture('succeeds.ts'), export: 'handler', env: { DB_PASSWORD: 'p' } } },
    });
    // Seen by the invoker made before it was registered: the file is read afresh.
    expect(await allowed(added.arn, 'ws_1')).toBe(true);
    expect(await allowed(localFunctionArn('other'), 'ws_1')).toBe(false);
    expect(await allowed('arn:aws:lambda:eu-west-1:111122223333:function:rotate-db', 'ws_1')).toBe(false);
    expect(await allowed(localFunctionArn('constructor'), 'ws_1')).toBe(false);
  });

  it('refuses what Lambda would: a bad name, a missing file, a bad export, a bad variable name, and the variables the stack sets', async () => {
    // Prepare
    const dir = localDir();
    const add = (input: { name?: string; handler?: string; export?: string; env?: Record<string, string> }) =>
      registerLocalFunction(dir, { name: 'rotate-db', handler: fixture('succeeds.ts'), env: {}, ...input });
    // Act / Assess
    await expect(add({ name: 'a'.repeat(65) })).rejects.toThrow(/--name: 1 to 64 letters/);
    await expect(add({ name: 'rotate.db' })).rejects.toThrow(/--name: 1 to 64 letters/);
    await expect(add({ name: '' })).rejects.toThrow(/--name: 1 to 64 letters/);
    await expect(add({ handler: fixture('missing.ts') })).rejects.toThrow(/--handler: no such file/);
    await expect(add({ handler: FIXTURES })).rejects.toThrow(/--handler: no such file/);
    await expect(add({ export: 'not-a-name' })).rejects.toThrow(/--handler: "not-a-name" is not an export name/);
    await expect(add({ env: { '1X': 'v' } })).rejects.toThrow(/--env: "1X" is not a variable name/);
    await expect(add({ env: { AWS_REGION: 'eu-west-1' } })).rejects.toThrow('--env: AWS_REGION is set by the local stack');
    await expect(add({ env: { SECRETS_MANAGER_ENDPOINT: 'x' } })).rejects.toThrow(
      '--env: SECRETS_MANAGER_ENDPOINT is set by the local stack',
    );
    expect(await listLocalFunctions(dir)).toEqual([]);
    expect(await add({ name: 'a'.repeat(64) })).toMatchObject({ name: 'a'.repeat(64) });
  });

  it('splits FILE#export at the last #, the export defaulting to handler', () => {
    // Act / Assess
    expect(parseHandlerSpec('./rotate.ts')).toEqual({ handler: './rotate.ts' });
    expect(parseHandlerSpec('./a#b/rotate.ts#rotate')).toEqual({ handler: './a#b/rotate.ts', export: 'rotate' });
  });
});

describe('local rotation functions: invocations', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('answers ok for a handler that resolves, whatever it prints', async () => {
    // Prepare
    const { invoker, arn } = await withFunction('succeeds.ts');
    // Act
    const outcome = await invoker.invoke(arn, EVENT, 10_000);
    // Assess
    expect(outcome).toEqual({ ok: true });
  });

  it("answers a throw as the error's name and message", async () => {
    // Prepare
    const { invoker, arn } = await withFunction('throws.ts');
    // Act
    const outcome = await invoker.invoke(arn, EVENT, 10_000);
    // Assess
    expect(outcome).toEqual({ ok: false, error: 'TypeError: the database refused the new password' });
  });

  it('kills a handler that passes its timeout and answers timed out', async () => {
    // Prepare
    const out = join(localDir(), 'pid');
    const { invoker, arn } = await withFunction('hangs.ts', { env: { OUT_FILE: out } });
    let gone = false;
    onTestFinished(() => {
      if (!gone) killIfAlive(out);
    });
    const started = Date.now();
    // Act
    const outcome = await invoker.invoke(arn, EVENT, 2_500);
    // Assess
    expect(outcome).toEqual({ ok: false, error: 'timed out after 2.5 s' });
    expect(Date.now() - started).toBeLessThan(6_000);
    const pid = Number(readFileSync(out, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    gone = true;
  }, 15_000);

  it('answers a process that ends without reporting by its exit code', async () => {
    // Prepare
    const { invoker, arn } = await withFunction('exits.ts');
    // Act
    const outcome = await invoker.invoke(arn, EVENT, 10_000);
    // Assess
    expect(outcome).toEqual({ ok: false, error: 'Runtime.ExitError: the process exited without a result (exit code 3)' });
  });

  it("calls the export named after #, with the event and a context, in an environment of only PATH, HOME, its variables and the stack's two", async () => {
    // Prepare
    process.env.AWS_SECRET_ACCESS_KEY = 'the-stack-own-secret';
    process.env.NODE_OPTIONS = '--max-old-space-size=64';
    const out = join(localDir(), 'seen.json');
    const { invoker, arn } = await withFunction('records.ts', { export: 'rotate', env: { OUT_FILE: out, DB_USER: 'app' } });
    // Act
    const outcome = await invoker.invoke(arn, EVENT, 10_000);
    // Assess
    expect(outcome).toEqual({ ok: true });
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.env).toEqual({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OUT_FILE: out,
      DB_USER: 'app',
      AWS_REGION: 'us-east-1',
      SECRETS_MANAGER_ENDPOINT: BASE_URL,
    });
    expect(seen.event).toEqual(EVENT);
    expect(seen).toMatchObject({ functionName: 'rotate-db', arn });
    expect(seen.remainingMs).toBeGreaterThan(0);
    expect(seen.remainingMs).toBeLessThanOrEqual(10_000);
  });

  it('answers a missing export, a file that fails to load and an unregistered ARN as Lambda words them', async () => {
    // Prepare
    const { invoker, arn } = await withFunction('succeeds.ts', { export: 'rotate' });
    const broken = await withFunction('fails-to-load.ts');
    // Act
    const missing = await invoker.invoke(arn, EVENT, 10_000);
    const unloaded = await broken.invoker.invoke(broken.arn, EVENT, 10_000);
    const unknown = await invoker.invoke(localFunctionArn('other'), EVENT, 10_000);
    // Assess
    expect(missing).toEqual({ ok: false, error: 'Runtime.HandlerNotFound: succeeds.ts.rotate is undefined or not exported' });
    expect(unloaded).toEqual({ ok: false, error: 'Runtime.ImportModuleError: DATABASE_URL is not set' });
    expect(unknown).toEqual({ ok: false, error: `ResourceNotFoundException: Function not found: ${localFunctionArn('other')}` });
  });
});

describe('local rotation functions: the runner', () => {
  it('ends when the stack that started it is gone, even while the function hangs', async () => {
    // Prepare
    const out = join(localDir(), 'pid');
    const runner = join(import.meta.dirname, '..', '..', '..', 'bin', 'local', 'function-runner.ts');
    const child = spawn(process.execPath, [runner], {
      env: { PATH: process.env.PATH, OUT_FILE: out },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const exited = once(child, 'exit');
    // A runner that outlived the test would hang on forever.
    onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
    const invocation: RunnerInvocation = {
      handler: fixture('hangs.ts'),
      export: 'handler',
      functionName: 'rotate-db',
      arn: localFunctionArn('rotate-db'),
      event: EVENT,
      deadline: Date.now() + 60_000,
    };
    child.send(invocation);
    await waitFor(() => existsSync(out), 8_000, 'the function to start');
    // Act
    child.disconnect();
    // Assess
    expect(await exited).toEqual([1, null]);
  }, 15_000);
});

describe('admin: function add and list', () => {
  it('registers FILE#export with repeated --env, and lists names of variables only', async () => {
    // Prepare
    const dir = localDir();
    // Act
    const added = await runAdmin([
      'function',
      'add',
      '--local-dir',
      dir,
      '--name',
      'rotate-db',
      '--handler',
      `${fixture('records.ts')}#rotate`,
      '--env',
      'DB_USER=app',
      '--env',
      'DSN=x=y',
    ]);
    const listed = await runAdmin(['function', 'list', '--local-dir', dir]);
    // Assess
    expect(added).toEqual({
      name: 'rotate-db',
      arn: localFunctionArn('rotate-db'),
      handler: fixture('records.ts'),
      export: 'rotate',
      env: ['DB_USER', 'DSN'],
    });
    expect(listed).toEqual({ functions: [added] });
    expect(JSON.stringify(listed)).not.toContain('x=y');
    expect(JSON.parse(readFileSync(join(dir, FUNCTIONS_FILE), 'utf8')).functions['rotate-db'].env).toEqual({ DB_USER: 'app', DSN: 'x=y' });
  });

  it('refuses a deployed table, a variable given twice or without its name, a missing flag and a bad name, as usage errors', async () => {
    // Prepare
    const dir = localDir();
    const add = (...flags: string[]) =>
      runAdmin(['function', 'add', '--local-dir', dir, '--name', 'f', '--handler', fixture('succeeds.ts'), ...flags]);
    /** The message of the UsageError `run` must end in (printed with the usage, exit code 2). */
    const usage = async (run: Promise<unknown>) => {
      const error = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      return (error as UsageError).message;
    };
    // Act / Assess
    expect(await usage(add('--table', 'secrets'))).toBe(
      "function add: only for the local stack; on AWS, list the function's ARN in the context rotationFunctionArns",
    );
    expect(await usage(runAdmin(['function', 'list', '--table', 'secrets']))).toMatch(/^function list: only for the local stack/);
    expect(await usage(add('--env', 'DB=1', '--env', 'DB=2'))).toBe('--env: DB given twice');
    expect(await usage(add('--env', 'hunter2'))).toBe('--env: expected NAME=VALUE (--env number 1 is not)');
    expect(await usage(add('--env', 'DB=1', '--env', '=hunter2'))).toBe('--env: expected NAME=VALUE (--env number 2 is not)');
    expect(await usage(runAdmin(['function', 'add', '--local-dir', dir, '--name', 'f']))).toBe(
      'function add: --name and --handler are required',
    );
    expect(await usage(add('--name', 'bad name'))).toMatch(/^--name: 1 to 64 letters/);
    expect(await usage(runAdmin(['function', 'remove', '--local-dir', dir]))).toBe('Unknown command: function remove');
    expect(await listLocalFunctions(dir)).toEqual([]);
  });
});
