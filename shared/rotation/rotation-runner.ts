import { randomPassword } from '../platform/random-password.ts';
import { logger } from '../platform/logger.ts';
import { ROTATION_STEPS, STEP_TIMEOUT_MS, type FunctionInvoker } from './function-invoker.ts';
import type { RotationMessage } from './rotation-records.ts';
import type { RotationSteps } from './rotation-steps.ts';

/**
 * The rotation runner (decisions.md v1.3, "Rotation"): one step of one rotation per message of the rotation queue,
 * so a rotation of four 5-minute steps never has to fit one Lambda invocation. A step runs only while its token holds
 * the secret's lease (a stale or repeated message does nothing). Without a function, the one step writes a random
 * value with the secret's generator settings as the new AWSCURRENT version. With one, each of AWS's four steps
 * invokes it with AWS's event, and after `finishSecret` AWSCURRENT must be on the token's version. Any failure leaves
 * AWSCURRENT where it was, takes AWSPENDING off, and is audited `secret.rotation_failed` (its event is
 * `service.secret.rotation_failed`) and counted in the `RotationFailures` metric.
 */

export interface RotationRunnerDeps {
  rotations: Pick<
    RotationSteps,
    | 'rotationHeldBy'
    | 'rotationTarget'
    | 'writeRotatedValue'
    | 'nextRotationStep'
    | 'finishRotation'
    | 'startScheduledRotation'
    | 'syncRotationSchedule'
    | 'rotationFunctionAllowed'
  >;
  invoker: FunctionInvoker;
  /** Counts a failed rotation (the RotationFailures metric). */
  onFailure?: (step: string) => void;
  stepTimeoutMs?: number;
}

const errorText = (error: unknown) => {
  const e = error as { name?: string; message?: string } | null;
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`.slice(0, 500);
};

export function makeRotationRunner(deps: RotationRunnerDeps) {
  const { rotations, invoker } = deps;

  async function fail(message: RotationMessage, rotation: Parameters<RotationRunnerDeps['rotations']['finishRotation']>[1], error: string) {
    await rotations.finishRotation(message.workspaceId, rotation, message.token, { ok: false, step: message.step, error });
    deps.onFailure?.(message.step);
    // The error may quote the function's message, which is the customer's: only the step and the secret are logged.
    logger.warn('rotation failed', { secretId: message.secretId, step: message.step });
  }

  return {
    async run(message: RotationMessage): Promise<void> {
      // A schedule's start: the rotation begins if it is still on and none is running (then the first step is queued).
      if (message.step === 'start') {
        await rotations.startScheduledRotation(message.workspaceId, message.secretId);
        return;
      }
      // A configuration changed: the secret's schedule is made to match it.
      if (message.step === 'schedule') return rotations.syncRotationSchedule(message.workspaceId, message.secretId);
      const rotation = await rotations.rotationHeldBy(message.workspaceId, message.secretId, message.token);
      if (!rotation) return;
      if (message.step === 'generate') {
        try {
          const value = randomPassword(rotation.generator ?? {});
          await rotations.writeRotatedValue(rotation, message.workspaceId, message.token, value);
        } catch (error) {
          return fail(message, rotation, errorText(error));
        }
        return rotations.finishRotation(message.workspaceId, rotation, message.token, { ok: true });
      }
      // The message was parsed (functions/rotation/handler.ts): what is left is one of AWS's four steps.
      const step = message.step;
      const arn = rotation.functionArn;
      const target = await rotations.rotationTarget(message.workspaceId, message.secretId);
      if (!arn || !target) return fail(message, rotation, 'the secret or its rotation function is gone');
      if (!(await rotations.rotationFunctionAllowed(message.workspaceId, arn)))
        return fail(message, rotation, `AccessDeniedException: the service may not invoke ${arn} (rotationFunctionArns)`);
      const outcome = await invoker.invoke(
        arn,
        { SecretId: target.arn, ClientRequestToken: message.token, Step: step },
        deps.stepTimeoutMs ?? STEP_TIMEOUT_MS,
      );
      if (!outcome.ok) return fail(message, rotation, outcome.error);
      if (step !== 'finishSecret') {
        const next = ROTATION_STEPS[ROTATION_STEPS.indexOf(step) + 1]!;
        return rotations.nextRotationStep({ ...message, step: next });
      }
      const after = await rotations.rotationTarget(message.workspaceId, message.secretId);
      if (after?.currentVersionId !== message.token)
        return fail(message, rotation, "AWSCURRENT is not on the rotation's version after finishSecret");
      return rotations.finishRotation(message.workspaceId, rotation, message.token, { ok: true });
    },
  };
}
