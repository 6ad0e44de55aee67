import { describe, expect, it } from 'vitest';
import { caught, principal } from '../support/fakes.ts';
import { ENV, GITHUB, OTHER_ENV, person, scopedAdmin, SSM, syncs } from './support.ts';

const admin = person('admin');

describe('syncs: creating', () => {
  it('answers the sync without its token, seals the token under the sync, audits sync.create and queues a full sync', async () => {
    const t = syncs();
    const made = await t.service.create(admin, { environmentId: ENV.environmentId, destination: GITHUB });
    expect(made).toEqual({
      id: expect.stringMatching(/^sync_[0-9A-Z]{26}$/),
      environmentId: ENV.environmentId,
      destination: { type: 'github-actions', repository: 'acme/web' },
      keys: '**',
      prune: false,
      status: 'pending',
      lastSyncedAt: null,
      lastError: null,
      createdAt: expect.any(String),
    });
    expect(t.cipher.encrypted).toEqual([{ workspaceId: 'ws_test', syncId: made.id }]);
    const stored = t.stored.get(made.id)!;
    expect(stored.sealedToken).toBeDefined();
    expect(stored.destination).not.toHaveProperty('token');
    expect(stored).toMatchObject({ accountId: 'acc_test', projectId: ENV.projectId, revision: 1 });
    expect(t.audits.map((a) => [a.action, a.metadata])).toEqual([
      [
        'sync.create',
        {
          syncId: made.id,
          environmentId: ENV.environmentId,
          projectId: ENV.projectId,
          destinationType: 'github-actions',
          keys: '**',
          prune: false,
          credentialKind: 'user',
        },
      ],
    ]);
    expect(t.queued).toEqual([{ workspaceId: 'ws_test', syncId: made.id, keys: null, at: t.clock.now(), attempt: 1 }]);
  });

  it('never answers nor audits the token, in the clear or sealed', async () => {
    const t = syncs();
    const made = await t.service.create(admin, { environmentId: ENV.environmentId, destination: GITHUB });
    const sealed = t.stored.get(made.id)!.sealedToken!.ciphertext;
    for (const text of [JSON.stringify(made), JSON.stringify(t.audits), JSON.stringify(await t.service.list(admin, { limit: 10 }))]) {
      expect(text).not.toContain(GITHUB.token);
      expect(text).not.toContain(sealed);
    }
  });

  it('keeps keys and prune as given; an AWS destination seals nothing', async () => {
    const t = syncs();
    const made = await t.service.create(admin, { environmentId: ENV.environmentId, destination: SSM, keys: 'DB_*', prune: true });
    expect(made).toMatchObject({ keys: 'DB_*', prune: true, destination: SSM });
    expect(t.cipher.encrypted).toEqual([]);
    expect(t.stored.get(made.id)).not.toHaveProperty('sealedToken');
  });

  it('is for admins only: a developer or a viewer is FORBIDDEN, and nothing is written or queued', async () => {
    const t = syncs();
    for (const role of ['developer', 'viewer'] as const) {
      const error = await caught(() => t.service.create(person(role), { environmentId: ENV.environmentId, destination: SSM }));
      expect([error.code, error.message]).toEqual(['FORBIDDEN', expect.stringContaining('manage syncs')]);
    }
    expect([t.stored.size, t.audits.length, t.queued.length]).toEqual([0, 0, 0]);
  });

  it('needs an environment the caller sees (NOT_FOUND otherwise, as an absent one)', async () => {
    const t = syncs();
    expect((await caught(() => t.service.create(admin, { environmentId: 'env_09', destination: SSM }))).code).toBe('NOT_FOUND');
    const hidden = await caught(() => t.service.create(scopedAdmin(), { environmentId: OTHER_ENV.environmentId, destination: SSM }));
    expect(hidden.code).toBe('NOT_FOUND');
    await expect(t.service.create(scopedAdmin(), { environmentId: ENV.environmentId, destination: SSM })).resolves.toBeDefined();
  });

  it("checks GitHub's apiUrl with the SSRF guard, naming the field and the guard's reason", async () => {
    const t = syncs({ urlVerdict: { ok: false, reason: 'must use https' } });
    const destination = { ...GITHUB, apiUrl: 'http://ghe.example/api/v3' };
    const error = await caught(() => t.service.create(admin, { environmentId: ENV.environmentId, destination }));
    expect([error.code, error.message]).toEqual(['VALIDATION_ERROR', 'destination.apiUrl: must use https']);
    expect(t.checkedUrls).toEqual(['http://ghe.example/api/v3']);
    expect(t.stored.size).toBe(0);
  });

  it('refuses an externalId without a roleArn to assume', async () => {
    const t = syncs();
    const error = await caught(() =>
      t.service.create(admin, { environmentId: ENV.environmentId, destination: { ...SSM, externalId: 'ext-1' } }),
    );
    expect([error.code, error.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^destination\.externalId: needs/)]);
  });
});

describe('syncs: reading', () => {
  it('lists the syncs the caller sees, one environment with environmentId; another workspace has none', async () => {
    const t = syncs();
    const a = await t.service.create(admin, { environmentId: ENV.environmentId, destination: SSM });
    const b = await t.service.create(admin, { environmentId: OTHER_ENV.environmentId, destination: SSM });
    expect((await t.service.list(admin, { limit: 10 })).items.map((s) => s.id)).toEqual([b.id, a.id]);
    expect((await t.service.list(admin, { limit: 10 }, OTHER_ENV.environmentId)).items.map((s) => s.id)).toEqual([b.id]);
    expect((await t.service.list(scopedAdmin(), { limit: 10 })).items.map((s) => s.id)).toEqual([a.id]);
    const hidden = await caught(() => t.service.list(scopedAdmin(), { limit: 10 }, OTHER_ENV.environmentId));
    expect(hidden.code).toBe('NOT_FOUND');
    expect((await caught(() => t.service.list(person('developer'), { limit: 10 }))).code).toBe('FORBIDDEN');
  });

  it('gets one sync; a hidden or absent one is NOT_FOUND, a developer FORBIDDEN', async () => {
    const t = syncs();
    const b = await t.service.create(admin, { environmentId: OTHER_ENV.environmentId, destination: SSM });
    await expect(t.service.get(admin, b.id)).resolves.toEqual(b);
    expect((await caught(() => t.service.get(scopedAdmin(), b.id))).code).toBe('NOT_FOUND');
    expect((await caught(() => t.service.get(admin, 'sync_01ABSENT'))).code).toBe('NOT_FOUND');
    expect((await caught(() => t.service.get(person('developer'), b.id))).code).toBe('FORBIDDEN');
    expect((await caught(() => t.service.get(principal({ workspaceId: 'ws_other' }), 'sync_01ABSENT'))).code).toBe('NOT_FOUND');
  });
});
