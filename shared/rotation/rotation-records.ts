import type { RotationStep } from './function-invoker.ts';
import type { StoredRotation } from './rotation-store.ts';

/** What a rotation's steps travel as, and what REST's `rotation` shows (decisions.md v1.3, "Rotation"). */

/**
 * What a message of the rotation queue asks: AWS's four steps of a rotation with a function, `generate` for one
 * without, `start` for a schedule's start (EventBridge Scheduler sends it) and `schedule` to make a secret's schedule
 * match its configuration.
 */
export const MESSAGE_STEPS = [
  'start',
  'schedule',
  'generate',
  'createSecret',
  'setSecret',
  'testSecret',
  'finishSecret',
] as const satisfies readonly ('start' | 'schedule' | 'generate' | RotationStep)[];
export type MessageStep = (typeof MESSAGE_STEPS)[number];

/** One step of a rotation to run. */
export interface RotationMessage {
  workspaceId: string;
  secretId: string;
  token: string;
  step: MessageStep;
}

/** Where the steps of a rotation are queued (the rotation queue: SQS on AWS, fauxqs locally). */
export interface RotationQueue {
  send(message: RotationMessage): Promise<void>;
}

/** What REST's `rotation` and DescribeSecret show of a rotation. */
export function rotationAnswer(rotation: StoredRotation | undefined) {
  if (!rotation) return null;
  return {
    enabled: rotation.enabled,
    function: rotation.functionArn,
    schedule: rotation.schedule,
    duration: rotation.duration,
    lastRotatedAt: rotation.lastRotatedAt,
    nextRotationAt: rotation.enabled ? rotation.nextRotationAt : null,
  };
}

/** Where the recurring schedules that start rotations are kept (rotation-schedules.ts). */
export interface RotationSchedules {
  put(workspaceId: string, secretId: string, expression: string, duration: string | null): Promise<void>;
  remove(secretId: string): Promise<void>;
}

/** A schedule's name: one per secret (secret ids are unique across workspaces), within EventBridge's 64 characters. */
export const scheduleNameOf = (secretId: string) => `rotate-${secretId}`;
