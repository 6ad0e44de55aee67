import { afterEach, describe, expect, it, vi } from 'vitest';
import { VersionConflictError, VersionIdTakenError, type SecretRecord } from '../../../shared/secrets/secret-record.ts';
import { makeSecretWriter, VersionIdExistsError } from '../../../shared/secrets/secret-writer.ts';
import { derivedVersionId } from '../../../shared/secrets/secret-names.ts';
import { compilePolicy, withDefaults } from '../../../shared/access/access-policy.ts';
import { secretContext } from '../../../shared/platform/crypto/context.ts';
import { RateLimitedError } from '../../../shared/platform/errors.ts';
import type { StoredVersion } from '../../../shared/secrets/secret-record.ts';
import { caught, fakeCipher, fakeClock, principal, sealedFor } from '../support/fakes.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const ENVIRONMENT = { id: 'env_01', projectId: 'proj_01', projectSlug: 'app', slug: 'prod' };

/** The key's record at `version`, as the environment's key item holds it. */
const at = (version: number): SecretRecord => ({
  id: 'sec_01',
  key: 'DB_PASSWORD',
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: version,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** A writer over a store whose `writeSecretVersion` is the test's; the key reads at version 1. */
function writer(writeSecretVersion: (...args: unknown[]) => Promise<void>, stored?: StoredVersion) {
  const store = {
    getEnvironmentSecret: vi.fn(async () => at(1)),
    getSecretHead: vi.fn(async () => undefined),
    getSecretVersion: vi.fn(async () => stored),
    getVersionNumberOf: vi.fn(async () => stored?.version),
    writeSecretVersion: vi.fn(writeSecretVersion),
    updateSecretMetadata: vi.fn(),
    countRevealPage: vi.fn(async () => {}),
    writeAuditEntries: vi.fn(async () => {}),
  };
  const guard = { readable: vi.fn(), permit: vi.fn() };
  const cipher = fakeCipher();
  const { writeNext } = makeSecretWriter({
    store: store as never,
    cipher,
    clock: fakeClock(),
    guard: guard as never,
    revealsPerMinute: 120,
  });
  return {
    store,
    cipher,
    write: (options = {}, value = 'v', caller = principal()) => writeNext(caller, ENVIRONMENT, { key: 'DB_PASSWORD', value }, options),
  };
}

/** A key with `write` (so `read`) on every secret and no `reveal`. */
const writeOnly = principal({
  actorSub: 'key_writer',
  credentialId: 'key_writer',
  authority: { policy: compilePolicy([withDefaults({ actions: ['write'] })]), admin: false },
});
const TOKEN = 'b0a6e5a2-5d1f-4d5e-9a55-6f4b1c2d3e4f';
/** Version 1 of the key, holding `right`, written by `createdBy` under `versionId`. */
const version1 = (createdBy: string, versionId: string | null = TOKEN): StoredVersion => ({
  version: 1,
  sealed: sealedFor('right', secretContext('ws_test', 'sec_01', 1)),
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy,
  rolledBackFrom: null,
  versionId,
});
const claimed = async () => Promise.reject(new VersionIdTakenError());
/** The `matched` of each `secret.write_repeated` entry written. */
const matchedOf = (store: ReturnType<typeof writer>['store']) =>
  store.writeAuditEntries.mock.calls.map((call) => {
    const [entry] = (call as unknown as [string, { action: string; metadata: { matched: unknown } }[]])[1];
    return [entry!.action, entry!.metadata.matched];
  });

describe('a repeated ClientRequestToken (decisions.md v1.4)', () => {
  it('is ResourceExists whatever the value for a write-only key that did not write that version: nothing opened, audited matched null', async () => {
    const { store, cipher, write } = writer(claimed, version1('key_other'));
    const right = await caught(() => write({ versionId: TOKEN }, 'right', writeOnly));
    const wrong = await caught(() => write({ versionId: TOKEN }, 'wrong', writeOnly));
    expect([right, wrong].map((error) => error.constructor)).toEqual([VersionIdExistsError, VersionIdExistsError]);
    expect(right.message).toBe(wrong.message);
    expect(cipher.decrypted).toEqual([]);
    expect(matchedOf(store)).toEqual([
      ['secret.write_repeated', null],
      ['secret.write_repeated', null],
    ]);
    expect(store.countRevealPage).toHaveBeenCalledTimes(2);
  });

  it("answers a write-only key's own retry (same token, same value) with its version, audited matched true", async () => {
    const { store, write } = writer(claimed, version1('key_writer'));
    const answer = await write({ versionId: TOKEN }, 'right', writeOnly);
    expect(answer).toMatchObject({ version: 1, versionId: TOKEN, repeated: true });
    expect(matchedOf(store)).toEqual([['secret.write_repeated', true]]);
  });

  it('compares for a caller that may reveal: the same value answers the version, another is ResourceExists (matched false)', async () => {
    const { store, write } = writer(claimed, version1('key_other'));
    expect(await write({ versionId: TOKEN }, 'right')).toMatchObject({ version: 1, repeated: true });
    expect(await caught(() => write({ versionId: TOKEN }, 'wrong'))).toBeInstanceOf(VersionIdExistsError);
    expect(matchedOf(store)).toEqual([
      ['secret.write_repeated', true],
      ['secret.write_repeated', false],
    ]);
  });

  it('counts against the reveal limit before anything is compared: past it, RATE_LIMITED, nothing opened or answered', async () => {
    const { store, cipher, write } = writer(claimed, version1('key_other'));
    store.countRevealPage.mockRejectedValue(new RateLimitedError('reveal rate limit reached', 30));
    const error = await caught(() => write({ versionId: TOKEN }, 'right'));
    expect(error.code).toBe('RATE_LIMITED');
    expect(cipher.decrypted).toEqual([]);
    expect(store.writeAuditEntries).not.toHaveBeenCalled();
  });
});

describe('a ClientRequestToken in the form of a derived VersionId (decisions.md v1.4: VersionIds never change meaning)', () => {
  const derived1 = derivedVersionId('sec_01', 1);

  it('names the version written without a token: another value is ResourceExists and makes no version', async () => {
    const { store, write } = writer(async () => {}, version1('key_other', null));
    expect(await caught(() => write({ versionId: derived1 }, 'another'))).toBeInstanceOf(VersionIdExistsError);
    expect(store.writeSecretVersion).not.toHaveBeenCalled();
    expect(await write({ versionId: derived1 }, 'right')).toMatchObject({ version: 1, repeated: true });
    expect(store.writeSecretVersion).not.toHaveBeenCalled();
  });

  it('of a version still to come, or of one that has a token of its own, is refused (VALIDATION_ERROR)', async () => {
    const { store, write } = writer(async () => {}, version1('key_other', TOKEN));
    const future = await caught(() => write({ versionId: derivedVersionId('sec_01', 5) }, 'right'));
    const ownToken = await caught(() => write({ versionId: derived1 }, 'right'));
    expect([future.code, ownToken.code]).toEqual(['VALIDATION_ERROR', 'VALIDATION_ERROR']);
    expect(future.message).toMatch(/^ClientRequestToken: /);
    expect(store.writeSecretVersion).not.toHaveBeenCalled();
  });

  it('of the very version the write makes is taken', async () => {
    const { store, write } = writer(async () => {});
    expect(await write({ versionId: derivedVersionId('sec_01', 2) })).toMatchObject({ version: 2 });
    expect(store.writeSecretVersion).toHaveBeenCalledOnce();
  });
});

describe('the secret writer', () => {
  it('after a lost race writes on what the failed write found (no read), and writes the version after it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let calls = 0;
    const { store, write } = writer(async () => {
      if (++calls === 1) throw new VersionConflictError({ current: at(2) });
    });
    const answer = await write();
    expect(answer.version).toBe(3);
    expect(store.getEnvironmentSecret).toHaveBeenCalledOnce();
    expect(store.writeSecretVersion.mock.calls.map((call) => (call[2] as { currentVersion: number }).currentVersion)).toEqual([1, 2]);
  });

  it('reads again after a lost race that could not tell what it found (a concurrent transaction)', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let calls = 0;
    const { store, write } = writer(async () => {
      if (++calls === 1) throw new VersionConflictError();
    });
    await write();
    expect(store.getEnvironmentSecret).toHaveBeenCalledTimes(2);
  });

  it('answers CONFLICT at once when its ClientRequestToken is claimed but names no version that can be read', async () => {
    const { store, write } = writer(async () => Promise.reject(new VersionIdTakenError()));
    const error = await caught(() => write({ versionId: 'b0a6e5a2-5d1f-4d5e-9a55-6f4b1c2d3e4f' }));
    expect(error).toBeInstanceOf(VersionIdExistsError);
    expect(error.code).toBe('CONFLICT');
    expect(store.writeSecretVersion).toHaveBeenCalledOnce();
  });
});
