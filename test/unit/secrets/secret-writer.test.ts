import { afterEach, describe, expect, it, vi } from 'vitest';
import { VersionConflictError, VersionIdTakenError, type SecretRecord } from '../../../shared/secrets/secret-record.ts';
import { makeSecretWriter, VersionIdExistsError } from '../../../shared/secrets/secret-writer.ts';
import { caught, fakeCipher, fakeClock, principal } from '../support/fakes.ts';

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
function writer(writeSecretVersion: (...args: unknown[]) => Promise<void>) {
  const store = {
    getEnvironmentSecret: vi.fn(async () => at(1)),
    getSecretHead: vi.fn(async () => undefined),
    getSecretVersion: vi.fn(async () => undefined),
    getVersionNumberOf: vi.fn(async () => undefined),
    writeSecretVersion: vi.fn(writeSecretVersion),
    updateSecretMetadata: vi.fn(),
  };
  const guard = { readable: vi.fn(), permit: vi.fn() };
  const { writeNext } = makeSecretWriter({ store: store as never, cipher: fakeCipher(), clock: fakeClock(), guard: guard as never });
  return { store, write: (options = {}) => writeNext(principal(), ENVIRONMENT, { key: 'DB_PASSWORD', value: 'v' }, options) };
}

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
