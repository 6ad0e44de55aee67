import { ConflictError, ValidationError } from '../platform/errors.ts';

/** Why a reference could not be resolved (decisions.md v1.4, "Secret references"). */
export type ReferenceReason = 'unresolvable' | 'cycle' | 'too_deep';

/** One item of the 409's `error.details`: `reference` is the text inside `${…}`. */
export interface ReferenceProblem {
  reference: string;
  reason: ReferenceReason;
}

/**
 * A write whose references do not parse (VALIDATION_ERROR). The message names the field, where the first bad reference
 * starts and the rule it breaks, never its text: that text is part of a value (maybe a password that happens to hold
 * "${"), and a 4xx answer may be stored with its Idempotency-Key.
 */
export class ReferenceSyntaxError extends ValidationError {}

/**
 * A reveal whose references cannot all be resolved: 409 CONFLICT with `details`, and no value at all (never a
 * half-resolved one). The message is generic; `details` names each reference and why. Reference texts are shown
 * only to a caller who may reveal the value holding them (the reveal's own check, then the port's per target).
 */
export class UnresolvedReferencesError extends ConflictError {
  override readonly details: readonly ReferenceProblem[];

  constructor(details: readonly ReferenceProblem[]) {
    const reasons = [...new Set(details.map((problem) => problem.reason))].join(', ');
    super(`the value's references cannot be resolved (${reasons}); see error.details`);
    this.details = details;
  }
}
