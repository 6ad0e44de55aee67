import { describe, expect, it } from 'vitest';
import { toAwsError } from '../../../shared/aws/aws-errors.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { AuditWrite } from '../../../shared/audit/audit-packing.ts';
import { secretContext } from '../../../shared/platform/crypto/context.ts';
import type { EnvironmentValue } from '../../../shared/secrets/environment-value-items.ts';
import { caught, sealedFor } from '../support/fakes.ts';
import { ENV, flatAudit, secretHarness } from './support.ts';

/**
 * Bulk reveals of values with references (decisions.md v1.4, "Secret references"; shared/secrets/secret-bulk-reveals.ts):
 * an environment page resolves every marked value in one resolution, its own values known (no read for a target in
 * the page), and is refused whole (409, details merged) when one cannot be resolved; each target revealed is its own
 * entry with `via`, written with the page's own entries before any value leaves; the page is cut by resolved sizes.
 */

/** The secret harness plus the store methods the bulk reveal uses; loaded values carry the heads' `references` marker. */
function bulkHarness() {
  const h = secretHarness();
  const audited: AuditEntry[][] = [];
  const written: AuditWrite[][] = [];
  const cursors: number[] = [];
  h.store.listEnvironmentValues = async (_ws, _env, page, onlyKeys) => {
    h.events.push('listEnvironmentValues');
    const items: EnvironmentValue[] = [...h.heads.values()]
      .filter((head) => head.environmentId === ENV.id && head.sealed && (!onlyKeys || onlyKeys.includes(head.key)))
      .sort((a, b) => a.key.localeCompare(b.key))
      .slice(0, page.limit)
      .map((head) => ({ id: head.id, key: head.key, version: head.currentVersion, sealed: head.sealed!, references: head.references }));
    const cursorAfter = async (index: number) => {
      cursors.push(index);
      return `after:${items[index]!.key}`;
    };
    return { items, nextCursor: null, hasMore: false, cursorAfter };
  };
  h.store.countRevealPage = async () => void h.events.push('countRevealPage');
  h.store.writeAuditEntries = async (_ws, entries) => {
    h.events.push('writeAuditEntries');
    audited.push(flatAudit(entries));
    written.push([...entries]);
  };
  const reveal = (keys?: string[]) => h.service.revealEnvironment(h.caller, ENV.id, { keys }, { limit: 100 });
  return { ...h, audited, written, cursors, reveal };
}

const viaOf = (entries: readonly AuditEntry[]) => entries.map((entry) => [entry.target, entry.metadata.via ?? null]);

/** A secret of the project's `staging` environment, put in the store directly (the harness writes to `prod` only). */
function staging(h: ReturnType<typeof bulkHarness>, key: string, value: string) {
  const id = `sec_staging_${key}`;
  const template = [...h.heads.values()][0]!;
  const { references: _references, ...head } = template;
  h.heads.set(id, {
    ...head,
    id,
    key,
    envSlug: 'staging',
    environmentId: 'env_02',
    currentVersion: 1,
    sealed: sealedFor(value, secretContext('ws_test', id, 1)),
  });
  return id;
}

describe('an environment load with references', () => {
  it('resolves the page in one resolution: a target in the page costs no read, one elsewhere one batch read', async () => {
    // Prepare
    const h = bulkHarness();
    const user = await h.write('USER', 'u');
    const dsn = await h.write('DSN', 'pg://${USER}@${staging.HOST}');
    const host = staging(h, 'HOST', 'db');
    h.events.length = 0;

    // Act
    const page = await h.reveal();

    // Assess
    expect(page.items.map(({ key, value }) => [key, value])).toEqual([
      ['DSN', 'pg://u@db'],
      ['USER', 'u'],
    ]);
    expect(h.batchReads).toEqual([['app/staging/HOST']]);
    // The page's own entries, each with its targets' packed in it, in one write after the values were opened and before any left.
    expect(h.events).toEqual(['listEnvironmentValues', 'countRevealPage', 'decrypt', 'decrypt', 'decrypt', 'writeAuditEntries']);
    expect(viaOf(h.audited[0]!)).toEqual([
      [dsn.id, null],
      [user.id, dsn.id],
      [host, dsn.id],
      [user.id, null],
    ]);
    expect(h.written[0]!.map((write) => [write.target, write.packed?.length ?? 0])).toEqual([
      [dsn.id, 2],
      [user.id, 0],
    ]);
    expect(h.audited[0]![2]!.metadata).toMatchObject({ key: 'HOST', environmentId: 'env_02', version: 1, via: dsn.id });
  });

  it('refuses the whole page when one value cannot be resolved: 409 with every failing value merged, no audit', async () => {
    // Prepare
    const h = bulkHarness();
    await h.write('A', '${NOPE}');
    await h.write('B', 'plain');
    await h.write('C', '${D}');
    await h.write('D', '${C}');
    await h.write('E', 'e-${NOPE}');

    // Act
    const error = (await caught(() => h.reveal())) as Error & { code?: string; details?: { reference: string; reason: string }[] };

    // Assess
    expect(error.code).toBe('CONFLICT');
    expect(error.details).toEqual(
      expect.arrayContaining([{ reference: 'NOPE', reason: 'unresolvable' }, expect.objectContaining({ reason: 'cycle' })]),
    );
    // NOPE failed for A and for E: named once.
    expect(error.details!.filter((problem) => problem.reference === 'NOPE')).toHaveLength(1);
    expect(h.audited).toEqual([]);
  });

  it('a page without references makes the calls it always made: no batch read, audit before decrypt', async () => {
    const h = bulkHarness();
    await h.write('A', 'plain $${B}');
    h.events.length = 0;
    expect((await h.reveal()).items.map((item) => item.value)).toEqual(['plain $${B}']);
    expect(h.batchReads).toEqual([]);
    expect(h.events).toEqual(['listEnvironmentValues', 'countRevealPage', 'writeAuditEntries', 'decrypt']);
  });

  it('cuts the page by resolved sizes: small sealed values resolving past 4 MiB end it early, auditing only what it answers', async () => {
    // Prepare: 60,000 characters 70 times over, through a reference each (sealed, every K is a few bytes).
    const h = bulkHarness();
    const big = await h.write('BIG', 'x'.repeat(60_000));
    for (let i = 0; i < 70; i++) await h.write(`K${String(i).padStart(2, '0')}`, '${BIG}');

    // Act
    const page = await h.reveal();

    // Assess: 4 MiB holds 69 values of 60,000 bytes (BIG and K00..K67); the cursor continues after the 69th.
    expect(page.items).toHaveLength(69);
    expect(page.items.at(-1)!.key).toBe('K67');
    expect(h.cursors).toEqual([68]);
    expect(page.nextCursor).toBe('after:K67');
    const entries = h.audited[0]!;
    expect(entries.filter((entry) => entry.metadata.via === undefined)).toHaveLength(69);
    expect(entries.filter((entry) => entry.target === big.id && entry.metadata.via !== undefined)).toHaveLength(68);
  });
});

describe("the AWS API's batch reveal (revealBatch) with references", () => {
  const wanted = (path: string) => ({ paths: [path], accepts: () => true });

  it('resolves the batch in one resolution; a secret that cannot be resolved is its own error, the others answer', async () => {
    // Prepare
    const h = bulkHarness();
    const b = await h.write('B', 'b');
    const a = await h.write('A', '${B}-${staging.HOST}');
    const x = await h.write('X', 'x-${NOPE}');
    const plain = await h.write('P', 'plain');
    const host = staging(h, 'HOST', 'db');
    h.batchReads.length = 0;

    // Act
    const results = await h.service.revealBatch(h.caller, [wanted('app/prod/A'), wanted('app/prod/X'), wanted('app/prod/P')]);

    // Assess
    expect(results.map((result) => ('value' in result ? result.value : (result.error as Error).constructor.name))).toEqual([
      'b-db',
      'UnresolvedReferencesError',
      'plain',
    ]);
    expect(toAwsError((results[1] as { error: unknown }).error)).toMatchObject({
      type: 'InvalidRequestException',
      message: expect.stringContaining('${NOPE} (unresolvable)'),
    });
    // The candidates in one read, then the first level of every value in the batch in one more.
    expect(h.batchReads).toEqual([
      ['app/prod/A', 'app/prod/X', 'app/prod/P'],
      ['app/prod/B', 'app/staging/HOST', 'app/prod/NOPE'],
    ]);
    // One write: the answered secrets' own entries, each target revealed packed with via in its own; X is not audited.
    expect(h.audited).toHaveLength(1);
    expect(viaOf(h.audited[0]!)).toEqual([
      [a.id, null],
      [b.id, a.id],
      [host, a.id],
      [plain.id, null],
    ]);
    expect(h.written[0]!.map((write) => write.packed?.length ?? 0)).toEqual([2, 0]);
    expect(h.audited[0]!.map((entry) => entry.target)).not.toContain(x.id);
  });

  it('a batch without references makes the calls it always made: one read, count, audit, then decrypt', async () => {
    const h = bulkHarness();
    await h.write('P', 'plain $${B}');
    h.events.length = 0;
    h.batchReads.length = 0;
    const [result] = await h.service.revealBatch(h.caller, [wanted('app/prod/P')]);
    expect(result).toMatchObject({ value: 'plain $${B}' });
    expect(h.batchReads).toEqual([['app/prod/P']]);
    expect(h.events).toEqual(['countRevealPage', 'writeAuditEntries', 'decrypt']);
  });
});
