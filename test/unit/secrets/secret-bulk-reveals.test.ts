import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { describe, expect, it } from 'vitest';
import { RateLimitedError, ServiceUnavailableError } from '../../../shared/platform/errors.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { EnvironmentValue } from '../../../shared/secrets/environment-value-items.ts';
import type { RevealLimit } from '../../../shared/secrets/reveal-limit-store.ts';
import { BULK_PAGE_VALUE_BYTES, makeSecretService } from '../../../shared/secrets/secret-service.ts';
import { caught, fakeClock, T0 } from '../support/fakes.ts';
import { ENV, secretHarness } from './support.ts';

/**
 * The bulk reveal (`revealEnvironment`): one page counts once against the reveal limits, its audit entries are
 * durable before any value is decrypted, and a page ends before its values pass 4 MiB.
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
