import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../shared/platform/principal.ts';
import { makeDeletedSecretService } from '../../../shared/secrets/deleted-secret-service.ts';
import { continuesRotation, refuseUnreviewedWrite, reviewRequired } from '../../../shared/secrets/review-gate.ts';
import type { DeletedSecret } from '../../../shared/secrets/secret-record.ts';
import { caught, fakeClock, principal } from '../support/fakes.ts';
import { ENV, secretHarness } from './support.ts';

/**
 * The review gate (decisions.md v1.4, "Change requests"): with a policy on the environment, every write kind of the
 * secrets service refuses a caller its `bypass` does not name, before anything is sealed or written; metadata-only
 * changes and the service's own rotation go on; without a policy a write by secret id reads nothing more.
 */

const POLICY = { requiredApprovals: 2, bypass: ['key_bypass'] };
/** A caller whose workspace item listed the environment among those with a policy (read with its credential). */
const told = (overrides: Partial<Principal> = {}) => principal({ reviewedEnvironments: new Set([ENV.id]), ...overrides });
const bypassing = () => told({ credentialId: 'key_bypass' });

/** The secret harness with one secret (two versions) written before the policy, then the policy on the environment. */
async function protectedHarness() {
  const h = secretHarness();
  const { id } = await h.write('DB_PASSWORD', 'one');
  await h.write('DB_PASSWORD', 'two');
  const environmentReads = vi.fn(async () => ({ ...ENV, reviewPolicy: POLICY }));
  h.store.getEnvironment = environmentReads;
  h.writes.length = 0;
  h.cipher.encrypted.length = 0;
  return { ...h, id, environmentReads };
}

describe('reviewRequired: the one decision', () => {
  it('no policy: no review; a policy: review, unless the credential is in its bypass', () => {
    expect(reviewRequired(principal(), undefined)).toBe(false);
    expect(reviewRequired(principal({ credentialId: 'ak_other' }), POLICY)).toBe(true);
    expect(reviewRequired(principal({ credentialId: 'key_bypass' }), POLICY)).toBe(false);
  });

  it('the refusal is REVIEW_REQUIRED, 409, naming the environment and its policy', async () => {
    const error = await caught(async () => refuseUnreviewedWrite(principal(), { id: ENV.id, reviewPolicy: POLICY }));
    expect([error.code, (error as { status?: number }).status]).toEqual(['REVIEW_REQUIRED', 409]);
    expect(error.message).toMatch(new RegExp(`^environment ${ENV.id} has a review policy \\(2 approvals\\)`));
  });

  it('a write continues a rotation only when its token names the version that carries AWSPENDING', () => {
    const head = { currentVersion: 2, labels: { AWSCURRENT: 2, AWSPENDING: 3 }, versionIds: { '3': 'tok-3', '2': 'tok-2' } };
    expect(continuesRotation(head, 'tok-3')).toBe(true);
    expect(continuesRotation(head, 'tok-2')).toBe(false);
    expect(continuesRotation(head, undefined)).toBe(false);
    expect(continuesRotation({ ...head, labels: { AWSCURRENT: 2 } }, 'tok-3')).toBe(false);
  });
});

describe('the secrets service asks the gate on every write kind', () => {
  it('a write by key (REST PUT, import): refused, nothing sealed or written; a bypass key writes', async () => {
    const h = await protectedHarness();
    const refused = await caught(() => h.service.write(told(), ENV.id, { key: 'DB_PASSWORD', value: 'three' }));
    expect(refused.code).toBe('REVIEW_REQUIRED');
    expect([h.writes.length, h.cipher.encrypted.length]).toEqual([0, 0]);
    // The environment item read for the write carries the policy, whatever the workspace item said.
    expect((await caught(() => h.service.write(principal(), ENV.id, { key: 'NEW', value: 'x' }))).code).toBe('REVIEW_REQUIRED');
    expect((await h.service.write(bypassing(), ENV.id, { key: 'DB_PASSWORD', value: 'three' })).version).toBe(3);
  });

  it.each([
    ['rollback', (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) => h.service.rollback(p, h.id, 1)],
    ['delete', (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) => h.service.delete(p, h.id)],
    [
      'PutSecretValue (writeExisting)',
      async (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) =>
        h.service.writeExisting(p, (await h.store.getSecretHead('ws_test', h.id))!, { value: 'three' }),
    ],
    [
      'CreateSecret (writeAtPath)',
      (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) =>
        h.service.writeAtPath(p, { projectSlug: 'app', envSlug: 'prod', key: 'NEW' }, { value: 'x' }),
    ],
    [
      'UpdateSecretVersionStage (moveStage)',
      async (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) =>
        h.service.moveStage(p, (await h.store.getSecretHead('ws_test', h.id))!, 'AWSCURRENT', 'some-token', undefined),
    ],
    [
      'rotation configuration and a start by a caller (writableHead)',
      (h: Awaited<ReturnType<typeof protectedHarness>>, p: Principal) => h.service.forRotation.writableHead(p, h.id),
    ],
  ])('%s: REVIEW_REQUIRED, nothing written', async (_kind, act) => {
    // Prepare
    const h = await protectedHarness();
    h.store.getProjectBySlug = async () => ({ id: ENV.projectId, slug: 'app', name: 'App', createdAt: '', createdBy: '' });
    h.store.getEnvironmentBySlug = async () => ({ ...ENV, reviewPolicy: POLICY });
    const headBefore = structuredClone(h.heads.get(h.id));
    // Act
    const refused = await caught(() => act(h, told()));
    // Assess
    expect(refused.code).toBe('REVIEW_REQUIRED');
    expect([h.writes.length, h.cipher.encrypted.length]).toEqual([0, 0]);
    expect(h.heads.get(h.id)).toEqual(headBefore);
  });

  it('a write by secret id reads its environment only when the workspace item lists it: no policy, no read', async () => {
    const h = await protectedHarness();
    // The workspace item listed no environment: nothing more is read, and the write goes on.
    expect((await h.service.rollback(principal(), h.id, 1)).version).toBe(3);
    expect(h.environmentReads).not.toHaveBeenCalled();
    // Listed: one read of the environment, then the refusal.
    expect((await caught(() => h.service.rollback(told(), h.id, 1))).code).toBe('REVIEW_REQUIRED');
    expect(h.environmentReads).toHaveBeenCalledTimes(1);
  });

  it('a bypass key deletes and rolls back; description and tags stay writable for anyone', async () => {
    const h = await protectedHarness();
    const updateSecretMetadata = vi.fn(async () => undefined);
    h.store.updateSecretMetadata = updateSecretMetadata;
    await h.service.updateMetadata(
      told(),
      h.id,
      () => ({ description: 'the database' }),
      () => ({}),
    );
    expect(updateSecretMetadata).toHaveBeenCalledTimes(1);
    expect((await h.service.rollback(bypassing(), h.id, 1)).version).toBe(3);
    expect((await h.service.delete(bypassing(), h.id)).deleted).toBe(true);
  });

  it("a rotation's own steps go on: the function filling the AWSPENDING version by its token, and the service's write", async () => {
    // Prepare: a rotation reserved version 3 under its token (AWSPENDING, no value yet).
    const h = await protectedHarness();
    const head = h.heads.get(h.id)!;
    Object.assign(head, { labels: { AWSCURRENT: 2, AWSPREVIOUS: 1, AWSPENDING: 3 }, versionIds: { '3': 'tok-rotation' }, unfilled: [3] });
    h.store.getSecretVersionRecords = async () => [];
    // Act: the function's PutSecretValue under the token fills it; the service's own write is never gated.
    const filled = await h.service.writeExisting(
      told(),
      structuredClone(head),
      { value: 'rotated' },
      {
        versionId: 'tok-rotation',
        stages: ['AWSPENDING'],
      },
    );
    // Assess
    expect(filled.version).toBe(3);
    const asService = await h.service.forRotation.writeAsService('ws_test', 'acc_test', h.id, 'tok-service', 'by-service');
    expect(asService.version).toBe(4);
  });
});

describe('restore', () => {
  it('REVIEW_REQUIRED in a protected environment, and nothing restored; a bypass key restores', async () => {
    // Prepare
    const deleted = { id: 'sec_01', key: 'K', projectId: ENV.projectId, environmentId: ENV.id, projectSlug: 'app', envSlug: 'prod' };
    const restoreSecret = vi.fn(async () => undefined);
    const store = {
      getDeletedSecret: async () => ({ ...deleted, currentVersion: 1, deletedAt: '2026-01-01T00:00:00.000Z' }) as unknown as DeletedSecret,
      getEnvironment: async () => ({ ...ENV, reviewPolicy: POLICY }),
      restoreSecret,
      recordDenial: async () => undefined,
    };
    const service = makeDeletedSecretService({ store: store as never, clock: fakeClock() });
    // Act
    const refused = await caught(() => service.restore(told(), deleted.id));
    // Assess
    expect(refused.code).toBe('REVIEW_REQUIRED');
    expect(restoreSecret).not.toHaveBeenCalled();
    await service.restore(bypassing(), deleted.id);
    expect(restoreSecret).toHaveBeenCalledTimes(1);
  });
});
