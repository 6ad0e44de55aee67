import { describe, expect, it } from 'vitest';
import { EXPIRY_MS } from '../../../shared/change-requests/change-request-records.ts';
import { caught } from '../support/fakes.ts';
import { changeRequests, ENV, machine, person } from './support.ts';

const alice = person('usr_alice', 'developer');
const bob = person('usr_bob', 'developer');
const carol = person('usr_carol', 'admin');
const proposal = {
  environmentId: ENV.environmentId,
  title: 'Rotate the DB',
  changes: [
    { key: 'DB_URL', value: 'postgres://new' },
    { key: 'OLD', delete: true as const },
  ],
};

describe('change requests: opening', () => {
  it('answers the request without values, each key with its base version, the value sealed under the request and key', async () => {
    const t = changeRequests();
    t.versions.set('OLD', 4);
    const opened = await t.service.open(alice, proposal);
    expect(opened).toMatchObject({ status: 'open', authorSub: 'usr_alice', description: null, reviews: [] });
    expect(opened.changes).toEqual([
      { key: 'DB_URL', action: 'set', baseVersion: 0 },
      { key: 'OLD', action: 'delete', baseVersion: 4 },
    ]);
    expect(JSON.stringify(opened)).not.toContain('postgres');
    expect(t.cipher.encrypted).toEqual([{ workspaceId: 'ws_test', changeRequestId: opened.id, key: 'DB_URL' }]);
    expect(t.audits.map((a) => a.action)).toEqual(['change_request.open']);
  });

  it('needs write on each key (FORBIDDEN), an environment the caller sees (NOT_FOUND), each key once', async () => {
    const t = changeRequests();
    const writesOnlyDb = machine('mid_a', [
      { effect: 'allow', projects: ['*'], environments: ['*'], keys: ['DB_URL'], actions: ['write'] },
    ]);
    expect((await caught(() => t.service.open(writesOnlyDb, proposal))).code).toBe('FORBIDDEN');
    expect((await caught(() => t.service.open(alice, { ...proposal, environmentId: 'env_02' }))).code).toBe('NOT_FOUND');
    const twice = {
      ...proposal,
      changes: [
        { key: 'A', value: '1' },
        { key: 'A', value: '2' },
      ],
    };
    expect((await caught(() => t.service.open(alice, twice))).code).toBe('VALIDATION_ERROR');
  });

  it('needs delete, besides write, on each key it deletes (FORBIDDEN), as a direct delete does', async () => {
    const t = changeRequests();
    const writer = machine('mid_w', [{ effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['write'] }]);
    const error = await caught(() => t.service.open(writer, proposal));
    expect([error.code, error.message]).toEqual(['FORBIDDEN', expect.stringContaining('delete')]);
    expect(t.audits).toEqual([]);
    await expect(t.service.open(writer, { ...proposal, changes: [proposal.changes[0]!] })).resolves.toMatchObject({ status: 'open' });
  });
});

describe('change requests: reveal', () => {
  it('needs reveal on the key, and audits secret.reveal with changeRequestId before the value is unsealed', async () => {
    const t = changeRequests();
    const { id } = await t.service.open(alice, proposal);
    const writeOnly = machine('mid_w', [{ effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['write'] }]);
    expect((await caught(() => t.service.reveal(writeOnly, id, 'DB_URL'))).code).toBe('FORBIDDEN');
    expect(await t.service.reveal(bob, id, 'DB_URL')).toEqual({ key: 'DB_URL', value: 'postgres://new' });
    expect(t.events).toEqual(['recordReveal', 'decrypt']);
    expect(t.audits.at(-1)).toMatchObject({ action: 'secret.reveal', metadata: { key: 'DB_URL', changeRequestId: id } });
    expect((await caught(() => t.service.reveal(bob, id, 'OLD'))).code).toBe('NOT_FOUND');
  });
});

describe('change requests: reviews', () => {
  it("refuses the author's own identity, a machine token and a viewer (FORBIDDEN); an API key and another person review", async () => {
    const t = changeRequests({ requiredApprovals: 3 });
    const { id } = await t.service.open(alice, proposal);
    for (const who of [alice, machine('mid_x'), person('usr_v', 'viewer')])
      expect((await caught(() => t.service.review(who, id, { decision: 'approve' }))).code).toBe('FORBIDDEN');
    expect((await t.service.review(bob, id, { decision: 'approve', comment: 'ok' })).status).toBe('open');
    expect((await t.service.review(person('key_api', 'admin'), id, { decision: 'approve' })).status).toBe('open');
    expect((await t.service.review(carol, id, { decision: 'approve' })).status).toBe('approved');
  });

  it('a reject rejects; enough approvals approve', async () => {
    const t = changeRequests();
    const first = await t.service.open(alice, proposal);
    await t.service.review(bob, first.id, { decision: 'reject' });
    expect(t.requests.get(first.id)!.status).toBe('rejected');
    const second = await t.service.open(alice, proposal);
    const approved = await t.service.review(bob, second.id, { decision: 'approve' });
    expect(approved.status).toBe('approved');
    expect(approved.reviews).toEqual([{ reviewerSub: 'usr_bob', decision: 'approve', comment: null, createdAt: expect.any(String) }]);
    expect(t.audits.at(-1)).toMatchObject({ action: 'change_request.review', metadata: { decision: 'approve', status: 'approved' } });
  });

  it('takes one review per identity: a second one while the request is still open is CONFLICT', async () => {
    const t = changeRequests({ requiredApprovals: 2 });
    const { id } = await t.service.open(alice, proposal);
    await t.service.review(bob, id, { decision: 'approve' });
    const error = await caught(() => t.service.review(bob, id, { decision: 'approve' }));
    expect([error.code, error.message]).toEqual(['CONFLICT', 'This identity has already reviewed this change request']);
  });

  it('reads an open request past 30 days as expired, and refuses to review it (CONFLICT)', async () => {
    const t = changeRequests();
    const { id } = await t.service.open(alice, proposal);
    t.clock.advance(EXPIRY_MS);
    expect((await t.service.get(bob, id)).status).toBe('expired');
    expect((await t.service.list(bob, ENV.environmentId, { limit: 10 }, 'expired')).items.map((r) => r.id)).toEqual([id]);
    expect((await t.service.list(bob, ENV.environmentId, { limit: 10 }, 'open')).items).toEqual([]);
    const error = await caught(() => t.service.review(bob, id, { decision: 'approve' }));
    expect([error.code, error.message]).toEqual(['CONFLICT', 'The change request is expired: it cannot be reviewed']);
  });
});
