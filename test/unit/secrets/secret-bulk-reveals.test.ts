import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { describe, expect, it } from 'vitest';
import { RateLimitedError, ServiceUnavailableError } from '../../../shared/platform/errors.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { EnvironmentValue } from '../../../shared/secrets/environment-value-items.ts';
import type { RevealLimit } from '../../../shared/secrets/reveal-limit-store.ts';
import { BULK_PAGE_VALUE_BYTES, makeSecretService } from '../../../shared/secrets/secret-service.ts';
import { compilePolicy, withDefaults, type PermissionRuleInput } from '../../../shared/access/access-policy.ts';
import { caught, fakeClock, principal, T0 } from '../support/fakes.ts';
import { ENV, secretHarness } from './support.ts';

/**
 * The bulk reveals (shared/secrets/secret-bulk-reveals.ts, through the secrets service): `revealEnvironment`, whose
 * page counts once against the reveal limits, whose audit entries are durable before any value is decrypted, and
 * whose page ends before its values pass 4 MiB; and `revealBatch` (the AWS API's BatchGetSecretValue), which reads
 * every candidate in one request, decides each by the policy, and counts and audits the batch once.
 */

/** The secret harness plus the three store methods the bulk reveal uses, each logging into the same event list. */
function bulkHarness(options: { revealsPerMinute?: number } = {}) {
  const h = secretHarness(options);
  const counted: RevealLimit[] = [];
  const audited: AuditEntry[][] = [];
  const cursors: number[] = [];
  /** Values by key; a test may put one in directly (an oversized one, say) instead of writing it. */
  const values = new Map<string, EnvironmentValue>();
  h.store.listEnvironmentValues = async (_ws, _env, page, onlyKeys) => {
    h.events.push('listEnvironmentValues');
    for (const head of h.heads.values())
      if (head.sealed) values.set(head.key, { id: head.id, key: head.key, version: head.currentVersion, sealed: head.sealed });
    const items = [...values.values()]
      .filter((v) => !onlyKeys || onlyKeys.includes(v.key))
      .sort((a, b) => a.key.localeCompare(b.key))
      .slice(0, page.limit);
    const cursorAfter = async (index: number) => {
      cursors.push(index);
      return `after:${items[index]!.key}`;
    };
    return { items, nextCursor: null, hasMore: false, cursorAfter };
  };
  h.store.countRevealPage = async (_ws, limit) => {
    h.events.push('countRevealPage');
    counted.push(limit);
  };
  h.store.writeAuditEntries = async (_ws, entries) => {
    h.events.push('writeAuditEntries');
    audited.push([...entries]);
  };
  const reveal = (keys?: string[]) => h.service.revealEnvironment(h.caller, ENV.id, { keys }, { limit: 100 });
  return { ...h, counted, audited, cursors, values, reveal };
}

/** A value whose fake ciphertext is `bytes` long (the page cut measures the ciphertext). */
const sized = (key: string, bytes: number): EnvironmentValue => ({
  id: `secret_${key}`,
  key,
  version: 1,
  sealed: { ciphertext: Buffer.alloc(bytes).toString('base64'), iv: 'iv', tag: 'tag', encryptedDataKey: 'never opened' },
});

describe('secret service: bulk reveal order', () => {
  it('a page counts once against the limits, then its audit entries are written, then its values are decrypted', async () => {
    // Prepare
    const h = bulkHarness({ revealsPerMinute: 7 });
    await h.write('B_KEY', 'two');
    await h.write('A_KEY', 'one');
    // Act
    const page = await h.reveal();
    // Assess
    expect(page.items.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: 'A_KEY', value: 'one' },
      { key: 'B_KEY', value: 'two' },
    ]);
    expect(h.events).toEqual(['listEnvironmentValues', 'countRevealPage', 'writeAuditEntries', 'decrypt', 'decrypt']);
    expect(h.counted).toEqual([{ credentialId: h.caller.credentialId, perMinute: 7, workspacePerMinute: 70, now: T0 }]);
  });

  it('each revealed secret gets its own secret.reveal entry marked bulk, naming its key and version', async () => {
    // Prepare
    const h = bulkHarness();
    const a = await h.write('A_KEY', 'one');
    await h.write('A_KEY', 'one again');
    const b = await h.write('B_KEY', 'two');
    // Act
    await h.reveal();
    // Assess
    expect(h.audited).toHaveLength(1);
    expect(h.audited[0]).toMatchObject([
      {
        action: 'secret.reveal',
        target: a.id,
        metadata: { key: 'A_KEY', version: 2, projectId: ENV.projectId, environmentId: ENV.id, bulk: true },
      },
      {
        action: 'secret.reveal',
        target: b.id,
        metadata: { key: 'B_KEY', version: 1, projectId: ENV.projectId, environmentId: ENV.id, bulk: true },
      },
    ]);
  });

  it('an explicit workspace ceiling replaces the default of ten times the per-credential limit', async () => {
    // Prepare
    const h = bulkHarness();
    await h.write('A_KEY', 'one');
    const service = makeSecretService({
      store: h.store,
      cipher: h.cipher,
      clock: fakeClock(),
      place: LOCAL_PLACE,
      revealsPerMinute: 7,
      workspaceRevealsPerMinute: 9,
      rotationOf: async () => null,
    });
    // Act
    await service.revealEnvironment(h.caller, ENV.id, {}, { limit: 100 });
    // Assess
    expect(h.counted[0]).toMatchObject({ perMinute: 7, workspacePerMinute: 9 });
  });

  it('a page refused by the rate limit writes no audit entry and decrypts nothing', async () => {
    // Prepare
    const h = bulkHarness();
    await h.write('A_KEY', 'one');
    h.store.countRevealPage = async () => {
      throw new RateLimitedError('reveals: at most 120 per minute per credential', 30);
    };
    // Act
    const error = await caught(() => h.reveal());
    // Assess
    expect(error.code).toBe('RATE_LIMITED');
    expect(h.audited).toEqual([]);
    expect(h.events).not.toContain('decrypt');
  });

  it('audit entries that cannot be written fail the page and no value is decrypted', async () => {
    // Prepare
    const h = bulkHarness();
    await h.write('A_KEY', 'one');
    h.store.writeAuditEntries = async () => {
      throw new ServiceUnavailableError('audit entries could not all be written');
    };
    // Act
    const error = await caught(() => h.reveal());
    // Assess
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(h.events).not.toContain('decrypt');
  });

  it('an empty page counts nothing against the limits and audits nothing', async () => {
    // Prepare
    const h = bulkHarness();
    await h.write('A_KEY', 'one');
    // Act
    const page = await h.reveal(['NOT_THERE']);
    // Assess
    expect(page).toEqual({ items: [], nextCursor: null, hasMore: false });
    expect(h.events).toEqual(['listEnvironmentValues']);
  });

  it('an environment that does not exist is NOT_FOUND before any value is read', async () => {
    // Prepare
    const h = bulkHarness();
    // Act
    const error = await caught(() => h.service.revealEnvironment(h.caller, 'env_missing', {}, { limit: 100 }));
    // Assess
    expect(error.code).toBe('NOT_FOUND');
    expect(h.events).toEqual([]);
  });
});

describe('secret service: bulk reveal page size', () => {
  it('a page ends before its values pass 4 MiB; the cursor continues after the last value returned', async () => {
    // Prepare
    const h = bulkHarness();
    const third = Math.floor(BULK_PAGE_VALUE_BYTES / 3);
    for (const key of ['A', 'B', 'C', 'D']) h.values.set(key, sized(key, third));
    h.cipher.decrypt = async () => 'value';
    // Act
    const page = await h.reveal();
    // Assess
    expect(page.items.map((item) => item.key)).toEqual(['A', 'B', 'C']);
    expect(h.cursors).toEqual([2]);
    expect(page).toMatchObject({ nextCursor: 'after:C', hasMore: true });
    expect(h.audited[0]).toHaveLength(3);
  });

  it('values of exactly 4 MiB together still make one page', async () => {
    // Prepare
    const h = bulkHarness();
    h.values.set('A', sized('A', BULK_PAGE_VALUE_BYTES / 2));
    h.values.set('B', sized('B', BULK_PAGE_VALUE_BYTES / 2));
    h.cipher.decrypt = async () => 'value';
    // Act
    const page = await h.reveal();
    // Assess
    expect(page.items.map((item) => item.key)).toEqual(['A', 'B']);
    expect(page).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it('a single value over 4 MiB is still answered, alone on its page', async () => {
    // Prepare
    const h = bulkHarness();
    h.values.set('A', sized('A', BULK_PAGE_VALUE_BYTES + 1));
    h.values.set('B', sized('B', 10));
    h.cipher.decrypt = async () => 'value';
    // Act
    const page = await h.reveal();
    // Assess
    expect(page.items.map((item) => item.key)).toEqual(['A']);
    expect(page).toMatchObject({ nextCursor: 'after:A', hasMore: true });
  });
});

/** The bulk harness with the batch reveal's read of heads by path, which logs the paths it was asked for. */
function batchHarness(options: { revealsPerMinute?: number } = {}) {
  const h = bulkHarness(options);
  const pathReads: string[][] = [];
  const denials: string[] = [];
  h.store.getSecretsByPaths = async (_ws, paths) => {
    pathReads.push([...paths]);
    const byPath = new Map([...h.heads.values()].map((head) => [`${head.projectSlug}/${head.envSlug}/${head.key}`, structuredClone(head)]));
    return new Map(paths.map((path) => [path, byPath.get(path)]));
  };
  h.store.recordDenial = async (_ws, credentialId, subject) => {
    denials.push(`${credentialId} ${subject}`);
    return true;
  };
  const everyone = () => true;
  const wanted = (...paths: string[]) => ({ paths, accepts: everyone });
  const outcomeOf = (result: { value?: string; error?: unknown }) =>
    result.error === undefined ? result.value : `${(result.error as Error).constructor.name}`;
  return { ...h, pathReads, denials, wanted, outcomeOf };
}

const as = (actions: PermissionRuleInput['actions'], projects = ['*']) =>
  principal({
    actorSub: 'key_scoped',
    credentialId: 'key_scoped',
    authority: { policy: compilePolicy([withDefaults({ actions, projects })]), admin: false },
  });

describe('secret service: batch reveal (revealBatch)', () => {
  it('reads every candidate path in one request, each once, and answers each wanted secret in order', async () => {
    // Prepare
    const h = batchHarness();
    await h.write('A_KEY', 'one');
    await h.write('B_KEY', 'two');

    // Act
    const results = await h.service.revealBatch(h.caller, [
      h.wanted('app/prod/B_KEY'),
      h.wanted('app/prod/A_KEY', 'app/prod/B_KEY'),
      h.wanted('not a path', 'app/prod/MISSING'),
    ]);

    // Assess
    expect(h.pathReads).toEqual([['app/prod/B_KEY', 'app/prod/A_KEY', 'app/prod/MISSING']]);
    expect(results.map(h.outcomeOf)).toEqual(['two', 'one', 'NotFoundError']);
    expect(results[0]).toMatchObject({ version: 1, secret: { key: 'B_KEY' } });
    expect(results[0]).not.toHaveProperty('secret.sealed');
  });

  it('takes the first candidate whose secret the wanted one accepts, and reads nothing when no candidate is a path', async () => {
    // Prepare
    const h = batchHarness();
    const a = await h.write('A_KEY', 'one');
    await h.write('B_KEY', 'two');
    const onlyB = { paths: ['app/prod/A_KEY', 'app/prod/B_KEY'], accepts: (s: { id: string }) => s.id !== a.id };

    // Act
    const [second] = await h.service.revealBatch(h.caller, [onlyB]);
    const none = await h.service.revealBatch(h.caller, [h.wanted('Not/A/Path!')]);

    // Assess
    expect(h.outcomeOf(second!)).toBe('two');
    expect(none.map(h.outcomeOf)).toEqual(['NotFoundError']);
    expect(h.pathReads).toHaveLength(1);
  });

  it('answers NOT_FOUND for a secret the caller may not read, FORBIDDEN (recorded) for one it may read but not reveal', async () => {
    // Prepare
    const h = batchHarness();
    await h.write('A_KEY', 'one');

    // Act
    const [hidden] = await h.service.revealBatch(as(['reveal'], ['other']), [h.wanted('app/prod/A_KEY')]);
    const [readOnly] = await h.service.revealBatch(as(['read']), [h.wanted('app/prod/A_KEY')]);

    // Assess
    expect([hidden, readOnly].map((r) => h.outcomeOf(r!))).toEqual(['NotFoundError', 'ForbiddenError']);
    expect(h.denials).toEqual([expect.stringMatching(/^key_scoped /)]);
    expect(h.counted).toEqual([]);
  });

  it('passes over a candidate the caller may not read to the next one it may', async () => {
    // Prepare
    const h = batchHarness();
    await h.write('A_KEY', 'one');
    await h.write('B_KEY', 'two');
    const onlyB = principal({
      authority: { policy: compilePolicy([withDefaults({ keys: ['B_KEY'], actions: ['reveal'] })]), admin: false },
    });

    // Act
    const [found] = await h.service.revealBatch(onlyB, [h.wanted('app/prod/A_KEY', 'app/prod/B_KEY')]);

    // Assess
    expect(h.outcomeOf(found!)).toBe('two');
  });

  it('answers a secret created without a value as NOT_FOUND (NoValueError), counting and auditing nothing for it', async () => {
    // Prepare
    const h = batchHarness();
    const a = await h.write('A_KEY', 'one');
    h.heads.set(a.id, { ...h.heads.get(a.id)!, currentVersion: 0, sealed: undefined });

    // Act
    const [valueless] = await h.service.revealBatch(h.caller, [h.wanted('app/prod/A_KEY')]);

    // Assess
    expect(h.outcomeOf(valueless!)).toBe('NoValueError');
    expect(h.events).not.toContain('countRevealPage');
    expect(h.events).not.toContain('writeAuditEntries');
  });

  it('counts the batch once and writes its audit entries together (bulk) before any value is decrypted', async () => {
    // Prepare
    const h = batchHarness({ revealsPerMinute: 7 });
    await h.write('A_KEY', 'one');
    await h.write('B_KEY', 'two');

    // Act
    await h.service.revealBatch(h.caller, [h.wanted('app/prod/A_KEY'), h.wanted('app/prod/B_KEY'), h.wanted('app/prod/NONE')]);

    // Assess
    expect(h.events.filter((event) => event !== 'listEnvironmentValues')).toEqual([
      'countRevealPage',
      'writeAuditEntries',
      'decrypt',
      'decrypt',
    ]);
    expect(h.counted).toEqual([{ credentialId: h.caller.credentialId, perMinute: 7, workspacePerMinute: 70, now: T0 }]);
    expect(h.audited[0]!.map((entry) => [entry.action, entry.metadata.key, entry.metadata.bulk])).toEqual([
      ['secret.reveal', 'A_KEY', true],
      ['secret.reveal', 'B_KEY', true],
    ]);
  });

  it('a batch the rate limit refuses throws as a whole: nothing audited or decrypted', async () => {
    // Prepare
    const h = batchHarness();
    await h.write('A_KEY', 'one');
    h.store.countRevealPage = async () => Promise.reject(new RateLimitedError('slow down', 5));

    // Act
    const error = await caught(() => h.service.revealBatch(h.caller, [h.wanted('app/prod/A_KEY')]));

    // Assess
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(h.audited).toEqual([]);
    expect(h.events).not.toContain('decrypt');
  });
});
