import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from '@aws-sdk/client-lambda';
import { makeLambdaClient } from '../../platform/clients/lambda.ts';
import type { FunctionInvoker, InvokeOutcome, RotationEvent } from '../function-invoker.ts';
import { failedOutcome, timedOutOutcome } from '../invoke-outcome.ts';

/**
 * Rotation functions on AWS (decisions.md v1.3, "Where functions run"): a synchronous Lambda invocation with AWS's
 * event. The runner invokes only what the secrets service allows (the stack's context `rotationFunctionArns`, passed
 * as ROTATION_FUNCTION_ARNS: shared/rotation/rotation-functions.ts); the IAM grant is limited to the same patterns.
 */

let containerClient: LambdaClient | undefined;
/** The container's client, made on first use: a container that never invokes a function never makes one. */
const lambdaClient = () => (containerClient ??= makeLambdaClient());

/**
 * What a function error comes to: the `errorType` and `errorMessage` of Lambda's error payload, or the FunctionError
 * alone when the payload is not one (never the function's output otherwise).
 */
function functionErrorOutcome(answer: InvokeCommandOutput): InvokeOutcome {
  let body: { errorType?: unknown; errorMessage?: unknown } | undefined;
  try {
    body = JSON.parse(new TextDecoder().decode(answer.Payload)) ?? undefined;
  } catch {
    body = undefined;
  }
  const type = typeof body?.errorType === 'string' ? body.errorType : answer.FunctionError!;
  const message = typeof body?.errorMessage === 'string' ? body.errorMessage : 'the function failed';
  return failedOutcome(type, message);
}

/** The invoker over Lambda: `client` for tests, else the container's own, made on first use. */
export function makeLambdaInvoker(options: { client?: LambdaClient } = {}): FunctionInvoker {
  return {
    async invoke(arn: string, event: RotationEvent, timeoutMs: number): Promise<InvokeOutcome> {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      // The race does not wait for the SDK to notice the abort (a retry's back-off, say).
      const expired = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          controller.abort();
          resolve(undefined);
        }, timeoutMs);
      });
      try {
        const command = new InvokeCommand({
          FunctionName: arn,
          InvocationType: 'RequestResponse',
          Payload: new TextEncoder().encode(JSON.stringify(event)),
        });
        const answer = await Promise.race([(options.client ?? lambdaClient()).send(command, { abortSignal: controller.signal }), expired]);
        if (answer === undefined) return timedOutOutcome(timeoutMs);
        return answer.FunctionError ? functionErrorOutcome(answer) : { ok: true };
      } catch (error) {
        if (controller.signal.aborted) return timedOutOutcome(timeoutMs);
        const e = error as { name?: unknown; message?: unknown } | null;
        return failedOutcome(String(e?.name ?? 'Error'), String(e?.message ?? error));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
