/**
 * What other parts use of rotation: the invoker of customers' rotation functions (its contract, Lambda's on AWS and
 * the outcomes the local stand-in answers too), and the runner of rotation steps with its metric.
 */
export {
  ROTATION_STEPS,
  STEP_TIMEOUT_MS,
  type FunctionInvoker,
  type InvokeOutcome,
  type RotationEvent,
  type RotationStep,
} from './function-invoker.ts';
export { failedOutcome, OUTCOME_ERROR_LIMIT, timedOutOutcome } from './invoke-outcome.ts';
export { makeLambdaInvoker } from './lambda/lambda-invoker.ts';
export { makeRotationMetrics } from './rotation-metrics.ts';
export { makeRotationRunner, type RotationRunnerDeps } from './rotation-runner.ts';
