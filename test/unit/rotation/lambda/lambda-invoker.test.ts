import { InvokeCommand, LambdaClient, LambdaServiceException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RotationEvent } from '../../../../shared/rotation/function-invoker.ts';
import { makeLambdaInvoker } from '../../../../shared/rotation/lambda/lambda-invoker.ts';
import { rotationFunctionPatterns } from '../../../../shared/platform/rotation-function-arns.ts';

const lambdaMock = mockClient(LambdaClient);
const ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:rotate-db';
const EVENT: RotationEvent = {
  SecretId: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:db-AbCdEf',
  ClientRequestToken: '0d9a3a0e-5b0a-4c41-9d0c-0e7d3b4c5a61',
  Step: 'createSecret',
};

const invoker = () => makeLambdaInvoker({ client: new LambdaClient({ region: 'eu-west-1' }) });
/** A payload as the SDK answers it (a Uint8Array with helpers the invoker does not use). */
const payload = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value)) as never;

describe('Lambda invoker', () => {
  beforeEach(() => {
    lambdaMock.reset();
  });
  afterEach(() => {
    lambdaMock.reset();
    vi.useRealTimers();
  });

  it('reads the patterns from ROTATION_FUNCTION_ARNS: comma-separated, none when unset or empty, a malformed one refused', () => {
    // Act / Assess
    expect(rotationFunctionPatterns({ ROTATION_FUNCTION_ARNS: ` ${ARN} ,arn:aws:lambda:*:111122223333:function:rotate-*,` })).toEqual([
      ARN,
      'arn:aws:lambda:*:111122223333:function:rotate-*',
    ]);
    expect(rotationFunctionPatterns({ ROTATION_FUNCTION_ARNS: '' })).toEqual([]);
    expect(rotationFunctionPatterns({})).toEqual([]);
    expect(() => rotationFunctionPatterns({ ROTATION_FUNCTION_ARNS: `${ARN},rotate-*` })).toThrow(
      'ROTATION_FUNCTION_ARNS: "rotate-*" is not an ARN pattern',
    );
  });

  it('invokes the function synchronously with the event as JSON, and answers ok', async () => {
    // Prepare
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(null) });
    // Act
    const outcome = await invoker().invoke(ARN, EVENT, 60_000);
    // Assess
    expect(outcome).toEqual({ ok: true });
    const calls = lambdaMock.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input).toMatchObject({ FunctionName: ARN, InvocationType: 'RequestResponse' });
    expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual(EVENT);
  });

  it("answers a function error as the payload's errorType and errorMessage, cut to 500 characters", async () => {
    // Prepare
    const errorMessage = `the database refused the new password ${'x'.repeat(600)}`;
    lambdaMock.on(InvokeCommand).resolves({
      StatusCode: 200,
      FunctionError: 'Unhandled',
      Payload: payload({ errorType: 'TypeError', errorMessage, trace: ['TypeError: at handler (index.mjs:3:9)'] }),
    });
    // Act
    const outcome = await invoker().invoke(ARN, EVENT, 60_000);
    // Assess
    expect(outcome).toEqual({ ok: false, error: `TypeError: ${errorMessage}`.slice(0, 500) });
  });

  it('answers a function error whose payload is not an error object by its FunctionError alone, never the payload', async () => {
    // Prepare
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload('password=hunter2') });
    // Act
    const outcome = await invoker().invoke(ARN, EVENT, 60_000);
    // Assess
    expect(outcome).toEqual({ ok: false, error: 'Unhandled: the function failed' });
  });

  it('answers an SDK error by its name and message, and throws nothing', async () => {
    // Prepare
    lambdaMock.on(InvokeCommand).rejects(
      new LambdaServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        message: 'not authorized to perform lambda:InvokeFunction',
        $metadata: {},
      }),
    );
    // Act
    const outcome = await invoker().invoke(ARN, EVENT, 60_000);
    // Assess
    expect(outcome).toEqual({ ok: false, error: 'AccessDeniedException: not authorized to perform lambda:InvokeFunction' });
  });

  it('gives up at the timeout, aborting the request, even when the SDK does not answer the abort', async () => {
    // Prepare
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const client = {
      send: (_command: unknown, options: { abortSignal: AbortSignal }) => {
        signal = options.abortSignal;
        return new Promise(() => undefined);
      },
    } as unknown as LambdaClient;
    // Act
    const pending = makeLambdaInvoker({ client }).invoke(ARN, EVENT, 300_000);
    await vi.advanceTimersByTimeAsync(299_999);
    const early = signal?.aborted;
    await vi.advanceTimersByTimeAsync(1);
    // Assess
    expect(await pending).toEqual({ ok: false, error: 'timed out after 300 s' });
    expect(early).toBe(false);
    expect(signal?.aborted).toBe(true);
  });

  it('answers a request the abort ended as timed out, not as the SDK error', async () => {
    // Prepare
    vi.useFakeTimers();
    const client = {
      send: (_command: unknown, options: { abortSignal: AbortSignal }) =>
        new Promise((_resolve, reject) => {
          options.abortSignal.addEventListener('abort', () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })));
        }),
    } as unknown as LambdaClient;
    // Act
    const pending = makeLambdaInvoker({ client }).invoke(ARN, EVENT, 2_000);
    await vi.advanceTimersByTimeAsync(2_000);
    // Assess
    expect(await pending).toEqual({ ok: false, error: 'timed out after 2 s' });
  });
});
