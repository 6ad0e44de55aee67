import { describe, expect, it } from 'vitest';
import { secretContext } from '../../../shared/platform/crypto/context.ts';
import { caught } from '../support/fakes.ts';
import { secretHarness } from './support.ts';

/**
 * Rollback writes an old version's value again as the next version: a write (sealed afresh under the new version's
 * context, audited as secret.rotate with rolledBackFrom), never a reveal, and never a new secret.
 */

/** The secret harness with the `by` argument of each write kept (the version record's rolledBackFrom). */
function rollbackHarness(options: Parameters<typeof secretHarness>[0] = {}) {
  const h = secretHarness(options);
  const by: ({ createdBy: string; rolledBackFrom?: number | undefined } | null)[] = [];
  const write = h.store.writeSecretVersion;
  h.store.writeSecretVersion = async (ws, secret, previous, version, audit) => {
    by.push(version);
    return write(ws, secret, previous, version, audit);
  };
  return { ...h, by };
}

describe('secret service: rollback', () => {
  it("version 1's value comes back as the next version, sealed under that version's context and audited as a rotate from 1", async () => {
    // Prepare
    const h = rollbackHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    // Act
    const answer = await h.service.rollback(h.caller, id, 1);
    // Assess
    expect(answer).toMatchObject({ id, key: 'DB_PASSWORD', version: 3, versionId: null });
    expect(h.cipher.encrypted.at(-1)).toEqual(secretContext(h.caller.workspaceId, id, 3));
    expect(h.writes.at(-1)!.audit).toMatchObject({ action: 'secret.rotate', target: id, metadata: { version: 3, rolledBackFrom: 1 } });
    expect(h.by.at(-1)).toMatchObject({ number: 3, createdBy: h.caller.actorSub, rolledBackFrom: 1 });
    expect(await h.service.revealById(h.caller, id, undefined)).toMatchObject({ version: 3, value: 'one' });
  });

  it('is a write, not a reveal: nothing is counted or audited as a reveal', async () => {
    // Prepare
    const h = rollbackHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    // Act
    await h.service.rollback(h.caller, id, 1);
    // Assess
    expect(h.reveals).toEqual([]);
    expect(JSON.stringify(h.writes.at(-1)!.audit)).not.toContain('one');
  });

  it('a version above the current one is NOT_FOUND without reading a version item, and writes nothing', async () => {
    // Prepare
    const h = rollbackHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    const versionReads: number[] = [];
    h.store.getSecretVersion = async (_ws, _id, version) => {
      versionReads.push(version);
      return undefined;
    };
    // Act
    const error = await caught(() => h.service.rollback(h.caller, id, 2));
    // Assess
    expect(error.code).toBe('NOT_FOUND');
    expect(versionReads).toEqual([]);
    expect(h.writes).toHaveLength(1);
  });

  it('a secret deleted and written again under the same key between read and write is NOT_FOUND, not rolled into the new one', async () => {
    // Prepare
    const h = rollbackHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    const getHead = h.store.getSecretHead;
    h.store.getSecretHead = async (ws, secretId, prefetched) => {
      const head = await getHead(ws, secretId, prefetched);
      h.heads.set('secret_other', { ...head!, id: 'secret_other', currentVersion: 1 });
      h.heads.delete(secretId);
      return head;
    };
    // Act
    const error = await caught(() => h.service.rollback(h.caller, id, 1));
    // Assess
    expect(error.code).toBe('NOT_FOUND');
    expect(h.writes).toHaveLength(2);
  });

  it('If-Match naming another version is CONFLICT and writes nothing', async () => {
    // Prepare
    const h = rollbackHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    // Act
    const error = await caught(() => h.service.rollback(h.caller, id, 1, { ifMatch: 1 }));
    // Assess
    expect(error.code).toBe('CONFLICT');
    expect(h.writes).toHaveLength(2);
  });

  it('a rollback that loses the version race reads again and still writes the old value as the next version', async () => {
    // Prepare: a concurrent writer takes version 3 just before the rollback's first write is checked.
    let raced = false;
    const h = rollbackHarness({
      beforeWrite: () => {
        if (!raced || h.heads.size === 0) return;
        raced = false;
        const head = [...h.heads.values()][0]!;
        h.heads.set(head.id, { ...head, currentVersion: head.currentVersion + 1, revision: (head.revision ?? 0) + 1 });
      },
    });
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    raced = true;
    // Act
    const answer = await h.service.rollback(h.caller, id, 1);
    // Assess
    expect(answer.version).toBe(4);
    expect(h.writes.slice(2).map((w) => w.previousVersion)).toEqual([2, 3]);
    expect(h.by.slice(2).map((b) => b?.rolledBackFrom)).toEqual([1, 1]);
  });
});
