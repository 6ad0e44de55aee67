import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { SecretService, SecretRotationView } from '../secrets/index.ts';
import { rotationFunctionsAllowed } from './rotation-functions.ts';
import { rotationQueueOf } from './rotation-queue.ts';
import { rotationAnswer, type RotationSchedules } from './rotation-records.ts';
import { makeRotationService } from './rotation-service.ts';
import { makeRotationSteps } from './rotation-steps.ts';
import type { RotationStore } from './rotation-store.ts';

/**
 * Rotation as a function builds it once per container, over the secrets service it builds: the service for the
 * secrets group (REST's rotation routes) and the AWS API (RotateSecret, CancelRotateSecret, what DescribeSecret and
 * ListSecrets show), the steps for the runner, which alone keeps the schedules (functions/rotation/handler.ts).
 */
function rotationDeps(deps: {
  config: Config;
  store: RotationStore;
  secrets: Pick<SecretService, 'forRotation'>;
  clock: Clock;
  schedules?: RotationSchedules | undefined;
}) {
  return {
    secrets: deps.secrets.forRotation,
    store: deps.store,
    clock: deps.clock,
    place: deps.config.aws,
    queue: rotationQueueOf(deps.config),
    // Only the runner keeps schedules: the API functions ask it through the queue.
    schedules: deps.schedules,
    functionAllowed: rotationFunctionsAllowed(),
  };
}

/** The rotation service of the API functions: REST's rotation routes and the AWS API. */
export function rotationServiceOf(deps: Parameters<typeof rotationDeps>[0]) {
  return makeRotationService(rotationDeps(deps));
}

/** The runner's side, which only the runner's function builds (with the schedules it alone keeps). */
export function rotationStepsOf(deps: Parameters<typeof rotationDeps>[0]) {
  return makeRotationSteps(rotationDeps(deps));
}

/** A secret's rotation as its record shows it (the secrets service's `rotationOf`), read from the rotation item. */
export function rotationViewOf(store: Pick<RotationStore, 'getRotation'>) {
  return async (workspaceId: string, secretId: string): Promise<SecretRotationView | null> =>
    rotationAnswer(await store.getRotation(workspaceId, secretId));
}
