import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimitedError } from '../../../shared/platform/errors.ts';
import { VersionConflictError } from '../../../shared/secrets/secret-record.ts';
import { caught, T0 } from '../support/fakes.ts';
import { ENV, secretHarness } from './support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Removes the jitter between retries of a lost write race, so a hundred of them take no time. */
const noJitter = () => vi.spyOn(Math, 'random').mockReturnValue(0);

describe('secret service: writes', () => {
  it('a new key is version 1 (secret.create), the next write of it version 2 (secret.rotate), each sealed under its own version', async () => {
    // Prepare
    const h = secretHarness();
    // Act
    const first = await h.write('DB_PASSWORD', 'one');
    const second = await h.write('DB_PASSWORD', 'two');
    // Assess
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(second.id).toBe(first.id);
    expect(h.writes.map((w) => [w.previousVersion, w.audit.action])).toEqual([
      [0, 'secret.create'],
      [1, 'secret.rotate'],
    ]);
    expect(h.cipher.encrypted).toEqual([1, 2].map((version) => ({ workspaceId: 'ws_test', secretId: first.id, version: String(version) })));
    expect(h.writes[1]!.audit.metadata).toMatchObject({
      key: 'DB_PASSWORD',
      version: 2,
      projectId: ENV.projectId,
      credentialKind: 'api_key',
    });
  });

  it('a writer that loses the version race reads again and writes the next version: no update is lost', async () => {
    // Prepare: another writer's version 2 lands just before this writer's first attempt.
    noJitter();
    const h = secretHarness({
      beforeWrite: (n) => {
        if (n === 1) h.heads.forEach((head) => Object.assign(head, { currentVersion: 2, revision: (head.revision ?? 0) + 1 }));
      },
    });
    await h.write('DB_PASSWORD', 'one');
    // Act
    const result = await h.write('DB_PASSWORD', 'three');
    // Assess
    expect(result.version).toBe(3);
    expect(h.writes.map((w) => w.previousVersion)).toEqual([0, 1, 2]);
  });

  it('gives up with CONFLICT after 100 lost races in a row', async () => {
    noJitter();
    const h = secretHarness({
      beforeWrite: () =>
        h.heads.forEach((head) => Object.assign(head, { currentVersion: head.currentVersion + 1, revision: (head.revision ?? 0) + 1 })),
    });
    await h.write('DB_PASSWORD', 'one');
    h.writes.length = 0;
    const error = await caught(() => h.write('DB_PASSWORD', 'two'));
    expect(error.code).toBe('CONFLICT');
    expect(h.writes).toHaveLength(100);
  });

  it('If-Match naming another version is CONFLICT and writes nothing; If-Match 0 means "must not exist"', async () => {
    const h = secretHarness();
    await h.write('DB_PASSWORD', 'one', 0);
    const stale = await caught(() => h.write('DB_PASSWORD', 'two', 2));
    const exists = await caught(() => h.write('DB_PASSWORD', 'two', 0));
    expect([stale.code, exists.code]).toEqual(['CONFLICT', 'CONFLICT']);
    expect(h.writes).toHaveLength(1);
  });

  it('an If-Match write refused by a concurrent transaction is CONFLICT at once, even when the version it read is still current', async () => {
    // Prepare: the second write is cancelled by contention; the version it read (1) is still the current one.
    let attempts = 0;
    const h = secretHarness({
      beforeWrite: (n) => {
        if (n === 1 && ++attempts === 1) throw new VersionConflictError();
      },
    });
    await h.write('DB_PASSWORD', 'one');
    // Act
    const error = await caught(() => h.write('DB_PASSWORD', 'two', 1));
    // Assess: no second try, although it would now succeed.
    expect(error.code).toBe('CONFLICT');
    expect(attempts).toBe(1);
    expect(h.writes).toHaveLength(1);
  });

  it('a store failure that is not a version conflict is not retried', async () => {
    let attempts = 0;
    const h = secretHarness({
      beforeWrite: () => {
        attempts++;
        throw new Error('throttled');
      },
    });
    await expect(h.write('DB_PASSWORD', 'one')).rejects.toThrow('throttled');
    expect(attempts).toBe(1);
  });

  it('writing into an environment that does not exist is NOT_FOUND', async () => {
    const h = secretHarness();
    const error = await caught(() => h.service.write(h.caller, 'env_missing', { key: 'K', value: 'v' }));
    expect(error.code).toBe('NOT_FOUND');
  });
});

describe('secret service: reveals', () => {
  it('audits the reveal, counted against the caller credential at the configured rate, before it decrypts', async () => {
    // Prepare
    const h = secretHarness({ revealsPerMinute: 7 });
    const { id } = await h.write('DB_PASSWORD', 'one');
    // Act
    const revealed = await h.service.revealById(h.caller, id, undefined);
    // Assess
    // The value with its version, when it was written and the secret it is of (the AWS API names them), never sealed.
    expect(revealed).toEqual({
      key: 'DB_PASSWORD',
      version: 1,
      value: 'one',
      versionCreatedAt: expect.any(String),
      secret: expect.objectContaining({ key: 'DB_PASSWORD', currentVersion: 1 }),
    });
    expect(revealed.secret).not.toHaveProperty('sealed');
    expect(h.events).toEqual(['recordReveal', 'decrypt']);
    // The workspace ceiling (issue 11) defaults to ten times the per-credential limit.
    expect(h.reveals[0]!.limit).toEqual({ credentialId: h.caller.credentialId, perMinute: 7, workspacePerMinute: 70, now: T0 });
    expect(h.reveals[0]!.audit).toMatchObject({ action: 'secret.reveal', target: id, metadata: { version: 1 } });
  });

  it('a RATE_LIMITED reveal decrypts nothing: no value leaves without its audit entry', async () => {
    const h = secretHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    h.store.recordReveal = async () => {
      throw new RateLimitedError('reveals: at most 120 per minute per credential', 30);
    };
    const error = await caught(() => h.service.revealById(h.caller, id, undefined));
    expect(error.code).toBe('RATE_LIMITED');
    expect(h.events).not.toContain('decrypt');
  });

  it('an older version opens from its version item; a version above the current one is NOT_FOUND and audits nothing', async () => {
    const h = secretHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    await h.write('DB_PASSWORD', 'two');
    const old = await h.service.revealById(h.caller, id, 1);
    const future = await caught(() => h.service.revealById(h.caller, id, 3));
    expect(old).toMatchObject({ version: 1, value: 'one' });
    expect(future.code).toBe('NOT_FOUND');
    expect(h.reveals).toHaveLength(1);
  });

  it('reveals by path; a path that cannot name a secret is NOT_FOUND without a read', async () => {
    const h = secretHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    const read = vi.spyOn(h.store, 'getSecretByPath');
    expect(await h.service.revealByPath(h.caller, 'app/prod/DB_PASSWORD', undefined)).toMatchObject({ id, value: 'one' });
    const error = await caught(() => h.service.revealByPath(h.caller, 'app/prod', undefined));
    expect(error.code).toBe('NOT_FOUND');
    expect(read).toHaveBeenCalledTimes(1);
  });
});

describe('secret service: delete and list', () => {
  it('a purge that fails after the delete is reported and the delete still answers deleted', async () => {
    const h = secretHarness();
    const { id } = await h.write('DB_PASSWORD', 'one');
    h.store.purgeSecretVersions = async () => {
      throw new Error('throttled');
    };
    expect(await h.service.delete(h.caller, id, 0)).toEqual({ id, deleted: true, purgeAt: expect.any(String) });
    expect(h.purgeFailures).toEqual([id]);
    expect(h.heads.has(id)).toBe(false);
  });

  it('an empty list is NOT_FOUND for an unknown environment and an empty page for a known one', async () => {
    const h = secretHarness();
    expect((await h.service.list(h.caller, ENV.id, { limit: 10 })).items).toEqual([]);
    expect((await caught(() => h.service.list(h.caller, 'env_missing', { limit: 10 }))).code).toBe('NOT_FOUND');
  });
});
