import type { StoredRotation } from './rotation-store.ts';

/** What a rotation's steps travel as, and what REST's `rotation` shows (decisions.md v1.3, "Rotation"). */

/** One step of a rotation to run: `generate` for a rotation without a function, else AWS's step names. */
export interface RotationMessage {
  workspaceId: string;
  secretId: string;
  token: string;
  step: string;
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
