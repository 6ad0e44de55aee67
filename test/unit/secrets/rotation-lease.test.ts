import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../shared/platform/errors.ts';
import type { RotationMessage } from '../../../shared/secrets/rotation-records.ts';
import { RotationBusyError, type RotationLease, type StoredRotation } from '../../../shared/secrets/rotation-store.ts';
import { VersionConflictError, type SecretRecord, type StoredSecret } from '../../../shared/secrets/secret-record.ts';
import { makeSecretRotation } from '../../../shared/secrets/secret-rotation.ts';
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

function harness() {
  let head: StoredSecret = structuredClone(HEAD);
  let lease: RotationLease | null = null;
  const queued: RotationMessage[] = [];
  const reserved: string[] = [];
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
    takeRotationLease: async (_ws: string, _id: string, next: RotationLease, now: number) => {
      await tick();
      if (lease && lease.until >= now) throw new RotationBusyError();
      lease = next;
    },
    async writeSecretVersion(_ws: string, next: SecretRecord & { sealed: unknown }, expected: SecretRecord | undefined) {
      await tick();
      if (expected?.revision !== head.revision) throw new VersionConflictError();
      head = structuredClone(next) as StoredSecret;
      reserved.push(...(next.unfilled ?? []).map(String));
    },
    endRotationLease: async () => true,
    advanceRotationLease: async () => true,
    putRotation: async () => undefined,
  };
  const service = makeSecretRotation(
    {
      store: store as never,
      clock: fakeClock(),
      place: LOCAL_PLACE,
      writeNext: (async () => {
        throw new Error('not used');
      }) as never,
      queue: { send: async (message: RotationMessage) => void queued.push(message) },
      functionAllowed: async () => true,
    },
    { readable: async (_principal, found) => found as never, permit: async () => undefined },
  );
  return { service, queued, reserved, head: () => head };
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
});
