import type { InvokeOutcome } from './function-invoker.ts';

/** An audit entry's `error` is cut to this many characters (decisions.md v1.3, "Rotation"). */
export const OUTCOME_ERROR_LIMIT = 500;

/** A failed invocation: `<type>: <message>`, cut to the audit entry's limit. */
export function failedOutcome(type: string, message: string): InvokeOutcome {
  return { ok: false, error: `${type}: ${message}`.slice(0, OUTCOME_ERROR_LIMIT) };
}

/** An invocation that passed its timeout, in seconds as AWS words it. */
export function timedOutOutcome(timeoutMs: number): InvokeOutcome {
  return { ok: false, error: `timed out after ${timeoutMs / 1000} s` };
}
