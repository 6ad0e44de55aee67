import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { accessKeyAnswer } from '../../../shared/http/answers.ts';
import { ConflictError, NotFoundError } from '../../../shared/errors.ts';
import { makeAccessKeyService, type AccessKeyServiceStore } from '../../../shared/services/access-keys.ts';
import { makeProjectService, type ProjectServiceStore } from '../../../shared/services/projects.ts';
import type { AccessKeyItem } from '../../../shared/store/access-keys.ts';
import { SlugTakenError, type ProjectItem } from '../../../shared/store/projects.ts';
import { fakeClock, principal } from '../support/fakes.ts';

/** Projects in memory; the slug claim is conditional, and `stolen` slugs are taken by another request in between. */
function projectStore(existing: string[], stolen: string[] = []) {
  const slugs = new Set(existing);
  const created: ProjectItem[] = [];
  const store = {
    projectSlugsStartingWith: async (_ws: string, base: string) => [...slugs].filter((slug) => slug.startsWith(base)),
    async createProject(_ws: string, project: ProjectItem) {
      // Another request claims a stolen slug between our read and our write.
      const thief = stolen.indexOf(project.slug);
      if (thief >= 0) (stolen.splice(thief, 1), slugs.add(project.slug));
      if (slugs.has(project.slug)) throw new SlugTakenError();
      slugs.add(project.slug);
      created.push(project);
    },
  } as unknown as ProjectServiceStore;
  return { store, created };
}

describe('project service: slugs', () => {
  it('appends -2, -3, … on a clash and never fails on one', async () => {
    const { store } = projectStore(['payments-api', 'payments-api-2']);
    const service = makeProjectService({ store, clock: fakeClock() });
    expect((await service.createProject(principal, { name: 'Payments API' })).slug).toBe('payments-api-3');
  });

  it('reads the taken slugs again after losing the slug it picked to a concurrent create', async () => {
    const { store } = projectStore(['billing'], ['billing-2']);
    const service = makeProjectService({ store, clock: fakeClock() });
    expect((await service.createProject(principal, { name: 'Billing' })).slug).toBe('billing-3');
  });

  it('gives up with CONFLICT after losing eight races in a row', async () => {
    const { store } = projectStore([], ['x', 'x-2', 'x-3', 'x-4', 'x-5', 'x-6', 'x-7', 'x-8']);
    const service = makeProjectService({ store, clock: fakeClock() });
    await expect(service.createProject(principal, { name: 'X' })).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('access key service', () => {
  const record: AccessKeyItem = {
    id: 'ak_1', name: 'bot', identityId: 'mid_1', tokenPrefix: 'st_abcdefg', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'key_1',
    expiresAt: '2026-06-01T00:00:00.000Z', revokedAt: null, lastUsedAt: null,
  };

  /** The key as stored; with `winsRace` false a concurrent revoke lands between the read and the write. */
  function accessKeyStore(found: (AccessKeyItem & { tokenHash: string }) | undefined, winsRace = true) {
    const revokes: string[] = [];
    let reads = 0;
    const store = {
      getAccessKey: async () => found && (reads++ === 0 || winsRace ? found : { ...found, revokedAt: '2026-05-01T00:00:00.000Z' }),
      async revokeAccessKey(_ws: string, id: string) {
        revokes.push(id);
        return winsRace;
      },
    } as unknown as AccessKeyServiceStore;
    return { store, revokes };
  }

  it('revoking a revoked key writes nothing and answers the record as it is', async () => {
    const { store, revokes } = accessKeyStore({ ...record, revokedAt: '2026-05-01T00:00:00.000Z', tokenHash: 'h' });
    const answer = await makeAccessKeyService({ store, clock: fakeClock() }).revoke(principal, 'ak_1');
    expect(revokes).toEqual([]);
    expect(answer).toMatchObject({ status: 'revoked', revokedAt: '2026-05-01T00:00:00.000Z' });
  });

  it("a revoke that loses the race answers the winner's record, and its answer schema never lets the token hash out", async () => {
    const { store, revokes } = accessKeyStore({ ...record, tokenHash: 'secret-hash' }, false);
    const answer = await makeAccessKeyService({ store, clock: fakeClock(Date.parse('2026-05-02T00:00:00Z')) }).revoke(principal, 'ak_1');
    expect(revokes).toEqual(['ak_1']);
    expect(answer).toMatchObject({ status: 'revoked', revokedAt: '2026-05-01T00:00:00.000Z' });
    expect(JSON.stringify(z.parse(accessKeyAnswer, answer))).not.toContain('secret-hash');
  });

  it('derives the status at read time: expired once expiresAt has passed', async () => {
    const list = async (now: string) =>
      (await makeAccessKeyService({ store: { listAccessKeys: async () => ({ items: [record], nextCursor: null, hasMore: false }) } as unknown as AccessKeyServiceStore, clock: fakeClock(Date.parse(now)) }).list(principal, { limit: 10 })).items[0]!.status;
    expect([await list('2026-05-31T23:59:59Z'), await list('2026-06-01T00:00:00Z')]).toEqual(['active', 'expired']);
  });

  it('is NOT_FOUND for a key the workspace does not have', async () => {
    const { store } = accessKeyStore(undefined);
    await expect(makeAccessKeyService({ store, clock: fakeClock() }).revoke(principal, 'ak_9')).rejects.toBeInstanceOf(NotFoundError);
  });
});
