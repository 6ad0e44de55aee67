/**
 * How the service invokes a customer's rotation function (decisions.md v1.3, "Where functions run"): AWS Lambda on
 * AWS (lambda-invoker.ts), a child Node process locally (bin/local/local-functions.ts).
 */

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
export const ROTATION_STEPS: readonly RotationStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];

/** AWS's rotation event. */
export interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: RotationStep;
}

/**
 * What one invocation came to: ok, or the error (a message fit for an audit entry: never more than 500 characters,
 * never the function's output otherwise).
 */
export type InvokeOutcome = { ok: true } | { ok: false; error: string };

/**
 * Invokes rotation functions. Whether one may be invoked is not its question: the secrets service decides that
 * (shared/rotation/rotation-functions.ts), for the configuration and the runner alike.
 */
export interface FunctionInvoker {
  /** Invokes the function synchronously with the event; a throw, a function error or passing timeoutMs is { ok: false }. Never throws itself for those. */
  invoke(arn: string, event: RotationEvent, timeoutMs: number): Promise<InvokeOutcome>;
}

/** AWS's timeout for each step. */
export const STEP_TIMEOUT_MS = 5 * 60_000;
