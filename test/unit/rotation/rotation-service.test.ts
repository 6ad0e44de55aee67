import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../shared/platform/errors.ts';
import type { RotationMessage } from '../../../shared/rotation/rotation-records.ts';
import { RotationBusyError, type RotationLease, type StoredRotation } from '../../../shared/rotation/rotation-store.ts';
import { VersionConflictError, type SecretRecord, type StoredSecret } from '../../../shared/secrets/secret-record.ts';
import { makeRotationService } from '../../../shared/rotation/rotation-service.ts';
import { makeRotationSteps } from '../../../shared/rotation/rotation-steps.ts';
import { makeSecretsForRotation } from '../../../shared/secrets/secrets-for-rotation.ts';
import type { AuditEntry } from '../../../shared/audit/index.ts';
import { ForbiddenError } from '../../../shared/platform/errors.ts';
import type { RotationFunctionAllowed } from '../../../shared/rotation/rotation-functions.ts';
import { fakeClock, principal } from '../support/fakes.ts';

/**
 * The rotation's lease (decisions.md v1.3, "Rotation": one rotation of a secret at a time): starts made at once over
 * a store whose lease is a conditional write, as DynamoDB's UpdateItem is (checked and set in one step), make one
 * rotation: one AWSPENDING version reserved, one first step queued, every other start CONFLICT with nothing written.
 */

const HEAD = {
  id: 'sec_1',
  key: 'DB_PASSWORD',
  projectId: 'proj_1',
  projectSlug: 'app',
  environmentId: 'env_1',
  envSlug: 'prod',
  currentVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  revision: 1,
  sealed: { ciphertext: 'x' },
} as unknown as StoredSecret;

function harness(functionAllowed: RotationFunctionAllowed = async () => true) {
  let head: StoredSecret = structuredClone(HEAD);
  let lease: RotationLease | null = null;
  const queued: RotationMessage[] = [];
  const reserved: string[] = [];
  const audits: AuditEntry[] = [];
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
  const rotation = (): StoredRotation => ({
    secretId: HEAD.id,
    accountId: 'acc_test',
    enabled: true,
    functionArn: null,
    schedule: 'rate(30 days)',
    rules: {},
    duration: null,
    generator: { length: 32 },
    configuredAt: '2026-01-01T00:00:00.000Z',
    lastRotatedAt: null,
    nextRotationAt: null,
    lease,
  });
  const store = {
    getSecretHead: async () => (await tick(), structuredClone(head)),
    getRotation: async () => (await tick(), rotation()),
    // The lease's condition and its write in one step, as one conditional UpdateItem.
    takeRotationLease: async (_ws: string, _id: string, next: RotationLease, now: number, audit?: AuditEntry) => {
      await tick();
      if (lease && lease.until >= now) throw new RotationBusyError();
      lease = next;
      if (audit) audits.push(audit);
    },
    async writeSecretVersion(
      _ws: string,
      next: SecretRecord & { sealed: unknown },
      expected: SecretRecord | undefined,
      _sealed: unknown,
      audit: AuditEntry | undefined,
    ) {
      await tick();
      if (expected?.revision !== head.revision) throw new VersionConflictError();
      head = structuredClone(next) as StoredSecret;
      if (audit) audits.push(audit);
      reserved.push(...(next.unfilled ?? []).map(String));
    },
    endRotationLease: async () => true,
    advanceRotationLease: async () => true,
    putRotation: async () => undefined,
  };
  const secrets = makeSecretsForRotation(
    {
      store: store as never,
      writeNext: (async () => {
        throw new Error('not used');
      }) as never,
      reviewGate: async () => undefined,
    },
    { readable: async (_principal, found) => found as never, permit: async () => undefined },
  );
  const deps = {
    secrets,
    store: store as never,
    clock: fakeClock(),
    place: LOCAL_PLACE,
    queue: { send: async (message: RotationMessage) => void queued.push(message) },
    functionAllowed,
  };
  // The caller's side (configure, start now) and the runner's (a scheduled start, a rotation's end) over one lease.
  const service = { ...makeRotationService(deps), ...makeRotationSteps(deps) };
  return { service, queued, reserved, audits, rotation, head: () => head };
}

describe('the rotation lease', () => {
  it('makes one rotation of two starts at once: the other is CONFLICT, with no version reserved and no step queued', async () => {
    // Prepare
    const { service, queued, head } = harness();
    // Act
    const outcomes = await Promise.allSettled([
      service.startRotation(principal(), 'sec_1', '11111111-1111-4111-8111-111111111111'),
      service.startRotation(principal(), 'sec_1', '22222222-2222-4222-8222-222222222222'),
    ]);
    // Assess
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(ConflictError);
    expect((lost[0] as Error).message).toBe('rotation: this secret is rotating already; wait for it to end');
    const token = (won[0] as PromiseFulfilledResult<{ versionId: string }>).value.versionId;
    expect(queued).toEqual([{ workspaceId: 'ws_test', secretId: 'sec_1', token, step: 'generate' }]);
    expect(head().unfilled).toEqual([2]);
    expect(head().labels?.AWSPENDING).toBe(2);
  });

  it('refuses a later start while the first rotation holds the lease', async () => {
    // Prepare
    const { service, queued } = harness();
    await service.startRotation(principal(), 'sec_1', '11111111-1111-4111-8111-111111111111');
    // Act
    const again = service.startRotation(principal(), 'sec_1', '33333333-3333-4333-8333-333333333333');
    // Assess
    await expect(again).rejects.toThrow(ConflictError);
    expect(queued).toHaveLength(1);
  });

  it("names who started it: a caller's start is audited secret.rotation_start with the lease, and the outcome carries startedBy", async () => {
    // Prepare
    const { service, audits, rotation } = harness();
    const token = '44444444-4444-4444-8444-444444444444';
    // Act
    await service.startRotation(principal({ actorSub: 'usr_starter' }), 'sec_1', token);
    await service.finishRotation('ws_test', rotation(), token, { ok: true });
    // Assess
    expect(audits.map((entry) => [entry.action, entry.actorSub, entry.metadata.startedBy])).toEqual([
      ['secret.rotation_start', 'usr_starter', undefined],
      ['secret.rotation_succeeded', 'system', 'usr_starter'],
    ]);
    expect(audits[0]!.metadata).toMatchObject({ key: 'DB_PASSWORD', versionId: token, function: null });
  });

  it('names the schedule as the starter of a scheduled rotation, with no start entry', async () => {
    // Prepare
    const { service, audits, rotation, queued } = harness();
    // Act
    await service.startScheduledRotation('ws_test', 'sec_1');
    await service.finishRotation('ws_test', rotation(), queued[0]!.token, { ok: false, step: 'generate', error: 'Error: boom' });
    // Assess
    expect(audits.map((entry) => [entry.action, entry.metadata.startedBy])).toEqual([['secret.rotation_failed', 'schedule']]);
  });

  it("asks whether the function may be invoked for the caller's workspace when a rotation is configured", async () => {
    // Prepare
    const asked: [string, string][] = [];
    const { service } = harness(async (arn, workspaceId) => (asked.push([arn, workspaceId]), arn.endsWith(`rotate-${workspaceId}`)));
    const config = (functionArn: string) => ({ functionArn, schedule: 'rate(30 days)', rules: {}, duration: null });
    const fn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;
    // Act
    const own = await service.configureRotation(principal(), 'sec_1', config(fn('rotate-ws_test')));
    const other = service.configureRotation(principal(), 'sec_1', config(fn('rotate-ws_other')));
    // Assess
    expect(own?.function).toBe(fn('rotate-ws_test'));
    await expect(other).rejects.toThrow(ForbiddenError);
    expect(asked.map(([, workspaceId]) => workspaceId)).toEqual(['ws_test', 'ws_test']);
  });
});
