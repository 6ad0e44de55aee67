/**
 * What other parts use of rotation: the rotation service (REST's rotation routes, the AWS API's RotateSecret and its
 * kin, the runner) and its wiring, the rotation item's store, the runner of rotation steps with its metric, the
 * invoker of customers' rotation functions (its contract, Lambda's on AWS and the outcomes the local stand-in answers
 * too), and the one decision whether a function may be invoked and the ARNs a rotation may name. Entry modules
 * besides this file, kept out of it so that a bundle reaching it does not carry them (architecture.test.ts reads
 * these lines, as a package's `exports` map):
 * @entry rotation-schedules.ts the schedules, which only the runner keeps (they `import()` the EventBridge adapter)
 * @entry rotation-cron.ts cron rules read with croner, which the local stack's recurring scheduler fires at
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
export { makeRotationService, type RotationService } from './rotation-service.ts';
export { rotationServiceOf, rotationStepsOf, rotationViewOf } from './rotation-wiring.ts';
/** A rate schedule's interval, which the local stack's recurring scheduler fires at. */
export { intervalOf } from './rotation-schedule.ts';
export type { RotationSteps } from './rotation-steps.ts';
export { makeRotationStore, type RotationStore, type StoredRotation } from './rotation-store.ts';
export { MESSAGE_STEPS, type MessageStep, type RotationMessage } from './rotation-records.ts';
export { rotationFunctionsAllowed, type RotationFunctionAllowed } from './rotation-functions.ts';
export { LAMBDA_ARN } from '../platform/rotation-function-arns.ts';
