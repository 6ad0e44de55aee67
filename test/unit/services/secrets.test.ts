import { describe, expect, it } from 'vitest';
import { ConflictError, RateLimitedError } from '../../../shared/errors.ts';
import { makeSecretService, type SecretServiceStore } from '../../../shared/services/secrets.ts';
import { VersionConflictError, type StoredSecret } from '../../../shared/store/secrets.ts';
import { fakeCipher, fakeClock, principal, WS } from '../support/fakes.ts';

const ENV = 'env_01JABCDEFGHJKMNPQRSTVWXYZ0';
const environment = { id: ENV, projectId: 'proj_1', slug: 'prod', projectSlug: 'api', name: 'Prod', createdAt: '', createdBy: '' };

/**
 * The store's secret rules in memory: a version write is conditional on the version it read (another writer in
 * between is a VersionConflictError), and `loseRaces` makes the next writes lose as if another writer had won.
 */
function fakeStore(options: { loseRaces?: number; revealFails?: boolean } = {}) {
  const heads = new Map<string, StoredSecret>();
  const byKey = new Map<string, StoredSecret>();
  const writes: { version: number; action: string }[] = [];
  const reveals: { credentialId: string; perMinute: number; workspacePerMinute: number }[] = [];
  let losses = options.loseRaces ?? 0;
  const store = {
    getEnvironment: async () => environment,
    getEnvironmentSecret: async (_ws: string, _env: string, key: string) => byKey.get(key),
    getSecretHead: async (_ws: string, id: string) => heads.get(id),
    getSecretVersion: async () => undefined,
    async writeSecretVersion(_ws: string, secret: StoredSecret, previous: number, _by: string, audit: { action: string }) {
      if (losses > 0) {
        losses--;
        // Another writer won the race: it holds the version this write wanted.
        const current = byKey.get(secret.key);
        const taken = { ...secret, currentVersion: (current?.currentVersion ?? 0) + 1 };
        heads.set(taken.id, taken);
        byKey.set(secret.key, taken);
        throw new VersionConflictError();
      }
      if ((byKey.get(secret.key)?.currentVersion ?? 0) !== previous) throw new VersionConflictError();
      heads.set(secret.id, secret);
      byKey.set(secret.key, secret);
      writes.push({ version: secret.currentVersion, action: audit.action });
    },
    async recordReveal(_ws: string, _audit: unknown, limit: { credentialId: string; perMinute: number; workspacePerMinute: number }) {
      if (options.revealFails) throw new RateLimitedError('reveals: at most 1 per minute per credential', 30);
      reveals.push(limit);
    },
  } as unknown as SecretServiceStore;
  return { store, heads, writes, reveals };
}

describe('secret service', () => {
  it('a write that loses the version race reads again and writes the next version: no version is lost or shared', async () => {
    // Prepare: the first two attempts lose to concurrent writers
    const { store, writes } = fakeStore({ loseRaces: 2 });
    const service = makeSecretService({ store, cipher: fakeCipher().cipher, clock: fakeClock(), revealsPerMinute: 120 });
    // Act
    const written = await service.write(principal, ENV, { key: 'API_KEY', value: 'v' });
    // Assess: two other writers took versions 1 and 2; this write is version 3, a rotate
    expect(written.version).toBe(3);
    expect(writes).toEqual([{ version: 3, action: 'secret.rotate' }]);
  });

  it('with If-Match, a lost race is CONFLICT at once and never retried', async () => {
    const { store, writes } = fakeStore({ loseRaces: 1 });
    const service = makeSecretService({ store, cipher: fakeCipher().cipher, clock: fakeClock(), revealsPerMinute: 120 });
    await expect(service.write(principal, ENV, { key: 'API_KEY', value: 'v' }, { ifMatch: 0 })).rejects.toBeInstanceOf(ConflictError);
    expect(writes).toEqual([]);
  });

  it('with If-Match of another version, nothing is encrypted or written', async () => {
    const { store, writes } = fakeStore();
    const { cipher, calls } = fakeCipher();
    const service = makeSecretService({ store, cipher, clock: fakeClock(), revealsPerMinute: 120 });
    await expect(service.write(principal, ENV, { key: 'API_KEY', value: 'v' }, { ifMatch: 3 })).rejects.toThrow('If-Match: the current version of API_KEY is 0, not 3');
    expect([writes, calls.encrypt]).toEqual([[], 0]);
  });

  it('a reveal is audited (and counted) before anything is decrypted: a refused audit write returns no value', async () => {
    // Prepare
    const ok = fakeStore();
    const { cipher, calls } = fakeCipher();
    const service = makeSecretService({ store: ok.store, cipher, clock: fakeClock(), revealsPerMinute: 7, workspaceRevealsPerMinute: 30 });
    const { id } = await service.write(principal, ENV, { key: 'K', value: 'the value' });
    const refused = fakeStore({ revealFails: true });
    refused.heads.set(id, ok.heads.get(id)!);
    const refusing = makeSecretService({ store: refused.store, cipher, clock: fakeClock(), revealsPerMinute: 7 });
    // Act
    const revealed = await service.revealById(principal, id, undefined);
    const decryptsBefore = calls.decrypt;
    const failure = refusing.revealById(principal, id, undefined);
    // Assess: limits per credential and per workspace are passed on; the refused reveal never decrypts
    expect(revealed.value).toBe('the value');
    expect(ok.reveals).toEqual([{ credentialId: 'key_1', perMinute: 7, workspacePerMinute: 30, now: expect.any(Number) }]);
    await expect(failure).rejects.toBeInstanceOf(RateLimitedError);
    expect(calls.decrypt).toBe(decryptsBefore);
  });

  it('the workspace ceiling defaults to ten times the per-credential limit', async () => {
    const { store, heads, reveals } = fakeStore();
    const service = makeSecretService({ store, cipher: fakeCipher().cipher, clock: fakeClock(), revealsPerMinute: 12 });
    const { id } = await service.write(principal, ENV, { key: 'K', value: 'v' });
    expect(heads.has(id)).toBe(true);
    await service.revealById(principal, id, undefined);
    expect(reveals[0]!.workspacePerMinute).toBe(120);
  });

  it('reads ahead the keys the store names, so routes never build table keys', () => {
    const { store } = fakeStore();
    const calls: unknown[] = [];
    const service = makeSecretService({
      store: { ...store, secretByIdKeys: (...args: unknown[]) => (calls.push(args), []) } as unknown as SecretServiceStore,
      cipher: fakeCipher().cipher,
      clock: fakeClock(),
      revealsPerMinute: 1,
    });
    service.prefetch.byId(WS, 'sec_1', 2);
    expect(calls).toEqual([[WS, 'sec_1', 2]]);
  });
});
