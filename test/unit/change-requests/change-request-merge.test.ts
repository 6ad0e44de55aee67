import { describe, expect, it } from 'vitest';
import { caught } from '../support/fakes.ts';
import { changeRequests, ENV, machine, person } from './support.ts';

const alice = person('usr_alice', 'developer');
const bob = person('usr_bob', 'developer');
const dave = person('usr_dave', 'developer');
const proposal = {
  environmentId: ENV.environmentId,
  title: 'Two keys',
  changes: [
    { key: 'A', value: 'a2' },
    { key: 'B', value: 'b1' },
  ],
};

async function approved(t: ReturnType<typeof changeRequests>) {
  t.versions.set('A', 1);
  const { id } = await t.service.open(alice, proposal);
  await t.service.review(bob, id, { decision: 'approve' });
  return id;
}

describe('change requests: merge', () => {
  it('refuses a request that is not approved (CONFLICT naming its status)', async () => {
    const t = changeRequests();
    const { id } = await t.service.open(alice, proposal);
    const error = await caught(() => t.service.merge(alice, id));
    expect([error.code, error.message]).toEqual(['CONFLICT', 'The change request is open: it cannot be merged']);
  });

  it('is for the author or a reviewer only (FORBIDDEN)', async () => {
    const t = changeRequests();
    const id = await approved(t);
    expect((await caught(() => t.service.merge(dave, id))).code).toBe('FORBIDDEN');
    expect((await t.service.merge(bob, id)).status).toBe('merged');
  });

  it('needs delete on each key it deletes: an author whose rules lost delete since opening is FORBIDDEN, nothing written', async () => {
    const t = changeRequests();
    const all = { effect: 'allow' as const, projects: ['*'], environments: ['*'], keys: ['**'] };
    t.versions.set('A', 1);
    const author = machine('mid_a', [{ ...all, actions: ['write', 'delete'] }]);
    const { id } = await t.service.open(author, { ...proposal, changes: [{ key: 'A', delete: true as const }] });
    await t.service.review(bob, id, { decision: 'approve' });
    const lostDelete = machine('mid_a', [{ ...all, actions: ['write'] }]);
    expect((await caught(() => t.service.merge(lostDelete, id))).code).toBe('FORBIDDEN');
    expect(t.committed).toEqual([]);
    expect((await t.service.merge(author, id)).status).toBe('merged');
  });

  it('commits every change in one update, each version audited with changeRequestId, the values unsealed from the request', async () => {
    const t = changeRequests();
    const id = await approved(t);
    const merged = await t.service.merge(alice, id);
    expect(merged.status).toBe('merged');
    expect(t.committed).toHaveLength(1);
    expect(t.committed[0]!.writes).toHaveLength(2);
    expect(t.prepared.map((p) => [p.key, p.value, p.audit.action, p.audit.metadata.changeRequestId])).toEqual([
      ['A', 'a2', 'secret.rotate', id],
      ['B', 'b1', 'secret.create', id],
    ]);
    expect(t.audits.at(-1)).toMatchObject({ action: 'change_request.merge', metadata: { keys: ['A', 'B'], title: 'Two keys' } });
  });

  it('refuses with CONFLICT naming each stale key, and only those, when keys moved since proposed; nothing is written', async () => {
    const t = changeRequests();
    const id = await approved(t);
    t.versions.set('A', 2);
    const error = (await caught(() => t.service.merge(alice, id))) as Error & { code: string; details: unknown };
    expect(error.code).toBe('CONFLICT');
    expect(error.details).toEqual([{ key: 'A', baseVersion: 1, currentVersion: 2 }]);
    expect(t.committed).toEqual([]);
    expect(t.requests.get(id)!.status).toBe('approved');
  });

  it('names the key that moved between its read and the commit (the transaction condition failed)', async () => {
    const t = changeRequests();
    const id = await approved(t);
    t.race.moveKeyOnCommit = 'B';
    const error = (await caught(() => t.service.merge(alice, id))) as Error & { code: string; details: unknown };
    expect(error.details).toEqual([{ key: 'B', baseVersion: 0, currentVersion: 1 }]);
    expect(t.committed).toEqual([]);
  });
});

describe('change requests: one transaction', () => {
  it('merges 20 sets of 4 items (a version write) in one transaction; refuses, writing nothing, one past 99 items (CONFLICT)', async () => {
    // Prepare: 20 sets of 4 items, the request's 2 and one audit item for their one action: 83.
    const t = changeRequests({ itemsPerWrite: 4 });
    const changes = Array.from({ length: 20 }, (_, i) => ({ key: `K${i}`, value: 'v' }));
    const twenty = await t.service.open(alice, { ...proposal, changes });
    await t.service.review(bob, twenty.id, { decision: 'approve' });
    // 16 sets whose values add 2 reference edges each (6 items): 96 + 3 = 99 fit; 17 (105) do not.
    const edged = changeRequests({ itemsPerWrite: 6 });
    const sixteen = await edged.service.open(alice, { ...proposal, changes: changes.slice(0, 16) });
    const seventeen = await edged.service.open(alice, { ...proposal, changes: changes.slice(0, 17) });
    for (const { id } of [sixteen, seventeen]) await edged.service.review(bob, id, { decision: 'approve' });
    // Act
    const merged = await t.service.merge(alice, twenty.id);
    const fits = await edged.service.merge(alice, sixteen.id);
    const error = await caught(() => edged.service.merge(alice, seventeen.id));
    // Assess
    expect([merged.status, t.committed.length, t.committed[0]!.writes.length]).toEqual(['merged', 1, 20]);
    expect(fits.status).toBe('merged');
    expect([error.code, error.message]).toEqual(['CONFLICT', 'The merge needs 105 writes, more than one transaction holds']);
    expect(edged.committed).toHaveLength(1);
  });
});

describe('change requests: merged deletes', () => {
  it('deletes a key as any delete does, audited secret.delete with changeRequestId; a key already gone needs nothing', async () => {
    const t = changeRequests();
    t.versions.set('OLD', 3);
    const body = {
      ...proposal,
      changes: [
        { key: 'OLD', delete: true as const },
        { key: 'GONE', delete: true as const },
      ],
    };
    const { id } = await t.service.open(alice, body);
    await t.service.review(bob, id, { decision: 'approve' });
    expect((await t.service.merge(alice, id)).status).toBe('merged');
    expect(t.committed[0]!.writes).toHaveLength(1);
    expect(t.prepared.map((p) => [p.key, p.audit.action, p.audit.metadata.changeRequestId])).toEqual([['OLD', 'secret.delete', id]]);
  });
});

describe('change requests: close', () => {
  it('by the author or an admin (FORBIDDEN to others); a merged request cannot be closed (CONFLICT)', async () => {
    const t = changeRequests();
    const { id } = await t.service.open(alice, proposal);
    expect((await caught(() => t.service.close(bob, id))).code).toBe('FORBIDDEN');
    expect((await t.service.close(alice, id)).status).toBe('closed');
    const other = await t.service.open(alice, proposal);
    expect((await t.service.close(person('usr_admin', 'admin'), other.id)).status).toBe('closed');
    const mergedId = await approved(t);
    await t.service.merge(alice, mergedId);
    expect((await caught(() => t.service.close(alice, mergedId))).code).toBe('CONFLICT');
    expect(t.audits.filter((a) => a.action === 'change_request.close')).toHaveLength(2);
  });
});
