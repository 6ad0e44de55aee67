import { type AuditEntry, auditPut, SYSTEM_ACTOR } from '../audit/index.ts';
import { transact } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import type { PasswordRules } from '../platform/random-password.ts';
import { DEFAULT_GENERATOR } from './rotation-schedule.ts';

/**
 * A secret's rotation (decisions.md v1.3, "Rotation"), in one item beside its versions (so a purge removes it with
 * them): the configuration, when it last rotated and next will, and the lease of the rotation running now. The head
 * is not touched by configuring, so a write never races a configuration.
 */

/** How a rotation is configured, as REST and the AWS API gave it. */
export interface RotationConfig {
  /** The rotation function's ARN, or null: the service writes a random value itself. */
  functionArn: string | null;
  /** `rate(N hours|days)` or `cron(…)`; `AutomaticallyAfterDays: N` is kept as `rate(N days)`. */
  schedule: string;
  /** What the AWS API was given, to answer `RotationRules` as given. */
  rules: { AutomaticallyAfterDays?: number; ScheduleExpression?: string; Duration?: string };
  /** The window a scheduled rotation may start in (`1h` to `24h`), or null. */
  duration: string | null;
  /** The generator settings of a rotation without a function (GetRandomPassword's rules). */
  generator: PasswordRules | null;
}

/** Who started a rotation the schedule started (decisions.md v1.4: `startedBy` of its outcome). */
export const SCHEDULED_START = 'schedule';

/**
 * A running rotation: its token (the AWSPENDING version's id), the step it is at, until when it holds, and who started
 * it (the caller's actorSub, or `schedule`), which the runner's outcome entry names.
 */
export interface RotationLease {
  token: string;
  version: number;
  step: string;
  until: number;
  startedBy: string;
}

/** A lease's starter as stored; a lease taken before v1.4 by a schedule said `system`, or nothing. */
const starterOf = (stored: unknown) => (typeof stored === 'string' && stored !== SYSTEM_ACTOR ? stored : SCHEDULED_START);

export interface StoredRotation extends RotationConfig {
  secretId: string;
  /** The workspace's account, so the runner's audit entries reach its webhook endpoints. */
  accountId: string;
  enabled: boolean;
  configuredAt: string;
  lastRotatedAt: string | null;
  nextRotationAt: string | null;
  lease: RotationLease | null;
}

/** Another rotation holds the lease, or the rotation is off: the start was refused. */
export class RotationBusyError extends Error {}

const toRotation = (item: Record<string, unknown> | undefined): StoredRotation | undefined =>
  item && {
    secretId: item.secretId as string,
    accountId: item.accountId as string,
    enabled: item.enabled as boolean,
    functionArn: (item.functionArn as string | null | undefined) ?? null,
    schedule: item.schedule as string,
    rules: (item.rules as RotationConfig['rules'] | undefined) ?? {},
    duration: (item.duration as string | null | undefined) ?? null,
    // A rotation without a function always has its generator settings (the defaults when none were given).
    generator: (item.generator as PasswordRules | null | undefined) ?? (item.functionArn ? null : DEFAULT_GENERATOR),
    configuredAt: item.configuredAt as string,
    lastRotatedAt: (item.lastRotatedAt as string | null | undefined) ?? null,
    nextRotationAt: (item.nextRotationAt as string | null | undefined) ?? null,
    lease:
      typeof item.leaseToken === 'string'
        ? {
            token: item.leaseToken,
            version: item.leaseVersion as number,
            step: item.leaseStep as string,
            until: item.leaseUntil as number,
            startedBy: starterOf(item.leaseStartedBy),
          }
        : null,
  };

export function makeRotationStore(db: Db) {
  const key = keys.secretRotation;
  return {
    async getRotation(workspaceId: string, secretId: string): Promise<StoredRotation | undefined> {
      return toRotation(await getItem(db, key(workspaceId, secretId)));
    },

    /**
     * The stored rotations of several secrets (a page of ListSecrets), by secret id: one BatchGetItem per 100,
     * eventually consistent (a list), only the fields a listing shows.
     */
    async getRotations(workspaceId: string, secretIds: readonly string[]): Promise<Map<string, StoredRotation>> {
      const found = await batchRead(
        db,
        secretIds.map((id) => key(workspaceId, id)),
        { consistent: false },
      );
      const rotations = new Map<string, StoredRotation>();
      for (const item of found.values()) {
        const rotation = toRotation(item);
        if (rotation) rotations.set(rotation.secretId, rotation);
      }
      return rotations;
    },

    /**
     * Puts the configuration (on or off) with its audit entry, keeping a running rotation's lease and when it last
     * rotated: an UpdateItem, so a runner's concurrent lease change is never overwritten.
     */
    async putRotation(workspaceId: string, rotation: Omit<StoredRotation, 'lease' | 'lastRotatedAt'>, audit: AuditEntry): Promise<void> {
      const { secretId, ...fields } = rotation;
      const names = Object.keys(fields);
      await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: key(workspaceId, secretId),
              UpdateExpression: `SET #type = :type, secretId = :secretId, ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
              ExpressionAttributeNames: { '#type': 'type', ...Object.fromEntries(names.map((name) => [`#${name}`, name])) },
              ExpressionAttributeValues: {
                ':type': ENTITY.secretRotation,
                ':secretId': secretId,
                ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value])),
              },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [],
      );
    },

    /**
     * Takes the lease for a rotation, when the rotation is on and no other holds an unexpired lease; else
     * RotationBusyError. One conditional UpdateItem (two concurrent starts make one rotation), with the start's audit
     * entry in the same transaction when a caller started it.
     */
    async takeRotationLease(workspaceId: string, secretId: string, lease: RotationLease, now: number, audit?: AuditEntry): Promise<void> {
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: key(workspaceId, secretId),
              UpdateExpression:
                'SET leaseToken = :token, leaseVersion = :version, leaseStep = :step, leaseUntil = :until, leaseStartedBy = :by',
              ConditionExpression: 'enabled = :on AND (attribute_not_exists(leaseToken) OR leaseUntil < :now)',
              ExpressionAttributeValues: {
                ':token': lease.token,
                ':version': lease.version,
                ':step': lease.step,
                ':until': lease.until,
                ':by': lease.startedBy,
                ':on': true,
                ':now': now,
              },
            },
          },
          ...(audit ? [auditPut(db, workspaceId, audit)] : []),
        ],
        [0],
        { contention: 'handled' },
      );
      if (failed !== undefined) throw new RotationBusyError();
    },

    /** Moves the lease `token` holds to its next step (false when it no longer holds it: that message is stale). */
    async advanceRotationLease(workspaceId: string, secretId: string, token: string, step: string, until: number): Promise<boolean> {
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: key(workspaceId, secretId),
              UpdateExpression: 'SET leaseStep = :step, leaseUntil = :until',
              ConditionExpression: 'leaseToken = :token',
              ExpressionAttributeValues: { ':token': token, ':step': step, ':until': until },
            },
          },
        ],
        [0],
        { contention: 'handled' },
      );
      return failed === undefined;
    },

    /**
     * Ends the rotation `token` holds: the lease goes, `lastRotatedAt` moves on success, `nextRotationAt` is set.
     * False when it no longer holds the lease (nothing written).
     */
    async endRotationLease(
      workspaceId: string,
      secretId: string,
      token: string,
      times: { lastRotatedAt?: string; nextRotationAt: string | null },
    ): Promise<boolean> {
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: key(workspaceId, secretId),
              UpdateExpression: `REMOVE leaseToken, leaseVersion, leaseStep, leaseUntil, leaseStartedBy SET nextRotationAt = :next${times.lastRotatedAt ? ', lastRotatedAt = :last' : ''}`,
              ConditionExpression: 'leaseToken = :token',
              ExpressionAttributeValues: {
                ':token': token,
                ':next': times.nextRotationAt,
                ...(times.lastRotatedAt && { ':last': times.lastRotatedAt }),
              },
            },
          },
        ],
        [0],
        { contention: 'handled' },
      );
      return failed === undefined;
    },
  };
}

export type RotationStore = ReturnType<typeof makeRotationStore>;
