import { describe, expect, it } from 'vitest';
import { caught } from '../support/fakes.ts';
import { ENV, GITHUB, OTHER_ENV, person, scopedAdmin, SSM, syncs } from './support.ts';

const admin = person('admin');

async function withSync(destination: typeof GITHUB | typeof SSM = GITHUB) {
  const t = syncs();
  const made = await t.service.create(admin, { environmentId: ENV.environmentId, destination });
  t.audits.length = 0;
  t.queued.length = 0;
  return { ...t, id: made.id };
}

describe('syncs: PATCH', () => {
  it('re-seals a new token, audits tokenChanged without the token, and keeps the rest of the destination', async () => {
    const t = await withSync();
    const before = t.stored.get(t.id)!.sealedToken!;
    const answer = await t.service.update(admin, t.id, { destination: { type: 'github-actions', token: 'ghp_NEWTOKEN456' } });
    expect(answer.destination).toEqual({ type: 'github-actions', repository: 'acme/web' });
    const after = t.stored.get(t.id)!;
    expect(after.sealedToken).not.toEqual(before);
    expect(after.revision).toBe(2);
    expect(t.cipher.encrypted.at(-1)).toEqual({ workspaceId: 'ws_test', syncId: t.id });
    expect(t.audits[0]!.action).toBe('sync.update');
    expect(t.audits[0]!.metadata).toMatchObject({ syncId: t.id, changed: ['destination'], tokenChanged: true });
    const written = JSON.stringify([t.audits, answer]);
    expect(written).not.toContain('ghp_NEWTOKEN456');
    expect(written).not.toContain(after.sealedToken!.ciphertext);
  });

  it('changes keys and prune; tokenChanged only when the token changed', async () => {
    const t = await withSync();
    const answer = await t.service.update(admin, t.id, { keys: 'API_*', prune: true });
    expect(answer).toMatchObject({ keys: 'API_*', prune: true, status: 'pending' });
    expect(t.audits[0]!.metadata).toMatchObject({ changed: ['keys', 'prune'], keys: 'API_*', prune: true });
    expect(t.audits[0]!.metadata).not.toHaveProperty('tokenChanged');
    expect(t.cipher.encrypted).toHaveLength(1);
  });

  it('cannot change the destination type (VALIDATION_ERROR naming destination.type)', async () => {
    const t = await withSync();
    const error = await caught(() => t.service.update(admin, t.id, { destination: { type: 'aws-ssm', region: 'eu-west-1' } }));
    expect([error.code, error.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^destination\.type: cannot change/)]);
    expect(t.audits).toEqual([]);
  });

  it('merges AWS fields: null removes an optional one; an externalId left without its role is refused', async () => {
    const t = await withSync(SSM);
    await t.service.update(admin, t.id, {
      destination: { type: 'aws-ssm', roleArn: 'arn:aws:iam::123456789012:role/push', externalId: 'ext-1' },
    });
    expect(t.stored.get(t.id)!.destination).toEqual({ ...SSM, roleArn: 'arn:aws:iam::123456789012:role/push', externalId: 'ext-1' });
    const error = await caught(() => t.service.update(admin, t.id, { destination: { type: 'aws-ssm', roleArn: null } }));
    expect([error.code, error.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^destination\.externalId/)]);
    await t.service.update(admin, t.id, { destination: { type: 'aws-ssm', roleArn: null, externalId: null } });
    expect(t.stored.get(t.id)!.destination).toEqual(SSM);
  });

  it('pauses, then resumes: pending and a full sync queued; resuming a sync that is not paused queues nothing', async () => {
    const t = await withSync();
    expect((await t.service.update(admin, t.id, { paused: true })).status).toBe('paused');
    expect(t.queued).toEqual([]);
    expect((await caught(() => t.service.run(admin, t.id))).code).toBe('CONFLICT');
    expect((await t.service.update(admin, t.id, { paused: false })).status).toBe('pending');
    expect(t.queued).toEqual([{ workspaceId: 'ws_test', syncId: t.id, keys: null, at: t.clock.now(), attempt: 1 }]);
    await t.service.update(admin, t.id, { paused: false });
    expect(t.queued).toHaveLength(1);
  });

  it('is CONFLICT when another change came between its read and its write, and queues nothing', async () => {
    const t = await withSync();
    await t.service.update(admin, t.id, { paused: true });
    t.race.bumpOnUpdate = true;
    expect((await caught(() => t.service.update(admin, t.id, { paused: false }))).code).toBe('CONFLICT');
    expect(t.queued).toEqual([]);
  });

  it('is for admins only, and NOT_FOUND for a sync the caller does not see', async () => {
    const t = syncs();
    const hidden = await t.service.create(admin, { environmentId: OTHER_ENV.environmentId, destination: SSM });
    expect((await caught(() => t.service.update(person('developer'), hidden.id, { prune: true }))).code).toBe('FORBIDDEN');
    expect((await caught(() => t.service.update(scopedAdmin(), hidden.id, { prune: true }))).code).toBe('NOT_FOUND');
  });
});

describe('syncs: run and delete', () => {
  it('run queues a full sync and answers the sync; a developer is FORBIDDEN', async () => {
    const t = await withSync();
    await expect(t.service.run(admin, t.id)).resolves.toMatchObject({ id: t.id, status: 'pending' });
    expect(t.queued).toEqual([{ workspaceId: 'ws_test', syncId: t.id, keys: null, at: t.clock.now(), attempt: 1 }]);
    expect((await caught(() => t.service.run(person('developer'), t.id))).code).toBe('FORBIDDEN');
    expect(t.audits).toEqual([]);
  });

  it('delete removes it with sync.delete (its place, never its token); again is NOT_FOUND', async () => {
    const t = await withSync();
    await expect(t.service.delete(admin, t.id)).resolves.toEqual({ id: t.id, deleted: true });
    expect(t.stored.has(t.id)).toBe(false);
    expect(t.audits.map((a) => [a.action, a.metadata])).toEqual([
      [
        'sync.delete',
        {
          syncId: t.id,
          environmentId: ENV.environmentId,
          projectId: ENV.projectId,
          destinationType: 'github-actions',
          credentialKind: 'user',
        },
      ],
    ]);
    expect((await caught(() => t.service.delete(admin, t.id))).code).toBe('NOT_FOUND');
    expect((await caught(() => t.service.delete(person('viewer'), t.id))).code).toBe('FORBIDDEN');
  });
});
