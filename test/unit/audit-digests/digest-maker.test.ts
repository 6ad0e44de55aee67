import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canonicalLines, type DigestedEntry } from '../../../shared/audit-digests/digest-canonical.ts';
import { makeDigestMaker, periodsOf } from '../../../shared/audit-digests/digest-maker.ts';
import { type AuditDigest, digestJson, digestSha256, MAX_PERIODS_PER_RUN } from '../../../shared/audit-digests/digest-record.ts';
import { type DigestSigner, makeLocalDigestSigner, signDigest } from '../../../shared/audit-digests/digest-signer.ts';
import { verifyAudit } from '../../../shared/audit-digests/digest-verify.ts';
import type { EntryPage } from '../../../shared/audit-digests/digest-store.ts';
import { fakeBucket, fakeStore, timedEntry } from './maker-fakes.ts';
import { p256 } from './support.ts';

const WS = 'ws_01JAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'ws_01JBBBBBBBBBBBBBBBBBBBBBBB';
const ms = (at: string) => Date.parse(at);

function setup(options: { periodSeconds?: number; workspaces?: string[] } = {}) {
  const key = p256();
  const data = fakeStore();
  const bucket = fakeBucket();
  const errors: { message: string; attributes: unknown }[] = [];
  const signer = makeLocalDigestSigner(key.privateKeyPem);
  const maker = makeDigestMaker({
    store: data.store,
    workspaces: async () => options.workspaces ?? [WS],
    bucket,
    signer,
    periodSeconds: options.periodSeconds ?? 3600,
    log: { error: (message, attributes) => errors.push({ message, attributes }) },
  });
  return { key, data, bucket, errors, signer, maker };
}

const verify = (
  key: { publicKeyPem: string },
  entries: DigestedEntry[],
  digests: ReturnType<typeof setup>['data']['digests'],
  now: string,
) =>
  verifyAudit({ publicKeyPem: key.publicKeyPem, entries, digests: digests.get(WS) ?? [], since: '2026-12-01T00:00:00.000Z', now: ms(now) });

describe('digest maker', () => {
  it('digests each due period with entries, grouped by createdAt, and none for a period without entries', async () => {
    // Prepare
    const { data, maker, key, bucket } = setup();
    const entries = [
      timedEntry(1, '2026-12-01T09:10:00.000Z'),
      timedEntry(2, '2026-12-01T09:50:00.000Z'),
      timedEntry(3, '2026-12-01T11:05:00.000Z'),
      timedEntry(4, '2026-12-01T12:05:00.000Z'), // its period (12:00) is due at 13:20: not yet
    ];
    data.add(WS, ...entries);

    // Act
    const run = await maker.run(ms('2026-12-01T12:30:00.000Z'));

    // Assess
    expect(run).toEqual({ workspaces: 1, digests: 2, failed: 0 });
    const digests = data.digests.get(WS)!;
    expect(digests.map((d) => [d.hourStart, d.count])).toEqual([
      ['2026-12-01T09:00:00.000Z', 2],
      ['2026-12-01T11:00:00.000Z', 1],
    ]);
    expect(digests[1]!.previousDigestSha256).toBe(digestSha256(digests[0]!));
    const gz = bucket.objects.get(`${WS}/2026-12-01T09:00:00.000Z.jsonl.gz`)!;
    expect(gunzipSync(gz).toString('utf8')).toBe(canonicalLines(entries.slice(0, 2)));
    expect(bucket.objects.get(`${WS}/2026-12-01T11:00:00.000Z.digest.json`)!.toString('utf8')).toBe(digestJson(digests[1]!));
    expect(verify(key, entries.slice(0, 3), data.digests, '2026-12-01T12:30:00.000Z')).toEqual({ ok: true, entries: 3, digests: 2 });
  });

  it('reads one Query per workspace, from the end of its last digest to the due time of the last due period', async () => {
    // Prepare
    const { data, maker } = setup();
    data.add(WS, timedEntry(1, '2026-12-01T09:10:00.000Z'));
    await maker.run(ms('2026-12-01T10:30:00.000Z'));
    data.add(WS, timedEntry(2, '2026-12-01T10:10:00.000Z'), timedEntry(3, '2026-12-01T12:10:00.000Z'));

    // Act
    await maker.run(ms('2026-12-01T13:30:00.000Z'));

    // Assess
    expect(data.queries).toEqual([
      { workspaceId: WS, from: 0, to: ms('2026-12-01T10:20:00.000Z') - 1 },
      { workspaceId: WS, from: ms('2026-12-01T10:00:00.000Z'), to: ms('2026-12-01T13:20:00.000Z') - 1 },
    ]);
  });

  it('chains the first digest of a run to the last digest of the one before', async () => {
    // Prepare
    const { data, maker, key } = setup();
    const entries = [timedEntry(1, '2026-12-01T09:10:00.000Z'), timedEntry(2, '2026-12-01T11:10:00.000Z')];
    data.add(WS, entries[0]!);
    await maker.run(ms('2026-12-01T10:30:00.000Z'));
    data.add(WS, entries[1]!);

    // Act
    const run = await maker.run(ms('2026-12-01T12:30:00.000Z'));

    // Assess
    const [first, second] = data.digests.get(WS)!;
    expect(run.digests).toBe(1);
    expect(first!.previousDigestSha256).toBeNull();
    expect(second!.previousDigestSha256).toBe(digestSha256(first!));
    expect(verify(key, entries, data.digests, '2026-12-01T12:30:00.000Z')).toEqual({ ok: true, entries: 2, digests: 2 });
  });

  it('makes nothing again for a period already digested, even when an entry of it turns up late', async () => {
    // Prepare
    const { data, maker } = setup();
    data.add(WS, timedEntry(1, '2026-12-01T09:10:00.000Z'));
    await maker.run(ms('2026-12-01T10:30:00.000Z'));
    // Made at 09:59, its id from 10:01: read by the next run's Query, but its period has its digest.
    data.add(WS, timedEntry(2, '2026-12-01T09:59:00.000Z', '2026-12-01T10:01:00.000Z'), timedEntry(3, '2026-12-01T10:10:00.000Z'));

    // Act
    const run = await maker.run(ms('2026-12-01T11:30:00.000Z'));

    // Assess
    expect(run.digests).toBe(1);
    expect(data.digests.get(WS)!.map((d) => [d.hourStart, d.count])).toEqual([
      ['2026-12-01T09:00:00.000Z', 1],
      ['2026-12-01T10:00:00.000Z', 1],
    ]);
  });

  it('sends no Query for a workspace whose last digest is of the last due period', async () => {
    // Prepare
    const { data, maker } = setup();
    data.add(WS, timedEntry(1, '2026-12-01T09:10:00.000Z'));
    await maker.run(ms('2026-12-01T10:30:00.000Z'));

    // Act
    const run = await maker.run(ms('2026-12-01T11:19:00.000Z'));

    // Assess
    expect(run.digests).toBe(0);
    expect(data.queries).toHaveLength(1);
  });

  it('stops at MAX_PERIODS_PER_RUN periods, and the next run goes on from there', async () => {
    // Prepare
    const { data, maker } = setup({ periodSeconds: 60 });
    const start = ms('2026-12-01T00:00:30.000Z');
    for (let n = 0; n < MAX_PERIODS_PER_RUN + 10; n++) data.add(WS, timedEntry(n, new Date(start + n * 60_000).toISOString()));
    const now = start + (MAX_PERIODS_PER_RUN + 20) * 60_000;

    // Act
    const first = await maker.run(now);
    const second = await maker.run(now);

    // Assess
    expect(first.digests).toBe(MAX_PERIODS_PER_RUN);
    expect(second.digests).toBe(10);
    const all = data.digests.get(WS)!;
    expect(all.at(-1)!.previousDigestSha256).toBe(digestSha256(all.at(-2)!));
  });

  it('adopts a digest already in the bucket that is the one it would make (a run that stopped before the table)', async () => {
    // Prepare
    const { data, maker, bucket, signer, key } = setup();
    const entries = [timedEntry(1, '2026-12-01T09:10:00.000Z')];
    data.add(WS, ...entries);
    const { unsignedDigest } = await import('../../../shared/audit-digests/digest-record.ts');
    const earlier = await signDigest(
      signer,
      unsignedDigest({ workspaceId: WS, hourStart: '2026-12-01T09:00:00.000Z', entries, previous: null }),
    );
    bucket.objects.set(`${WS}/2026-12-01T09:00:00.000Z.digest.json`, Buffer.from(digestJson(earlier)));

    // Act
    const run = await maker.run(ms('2026-12-01T10:30:00.000Z'));

    // Assess: the stored one, signature and all (ECDSA signs differently each time), is the digest.
    expect(run).toEqual({ workspaces: 1, digests: 1, failed: 0 });
    expect(data.digests.get(WS)).toEqual([earlier]);
    expect(verify(key, entries, data.digests, '2026-12-01T10:30:00.000Z').ok).toBe(true);
  });

  const otherKey = makeLocalDigestSigner(p256().privateKeyPem);
  it.each([
    // Validly signed by this key, over other entries: an earlier run's digest of the period before an entry changed.
    ['other fields', async (made: AuditDigest, signer: DigestSigner) => signDigest(signer, { ...made, count: 2 })],
    ['a signature of another key', async (made: AuditDigest) => signDigest(otherKey, made)],
    ['no JSON object', async () => 'garbage'],
  ])('stops the workspace, logging ids only, when the bucket holds a different digest: %s', async (_, alter) => {
    // Prepare
    const { data, maker, bucket, signer, errors } = setup();
    const entries = [timedEntry(1, '2026-12-01T09:10:00.000Z'), timedEntry(2, '2026-12-01T11:10:00.000Z')];
    data.add(WS, ...entries);
    const { unsignedDigest } = await import('../../../shared/audit-digests/digest-record.ts');
    const made = await signDigest(
      signer,
      unsignedDigest({ workspaceId: WS, hourStart: '2026-12-01T09:00:00.000Z', entries: [entries[0]!], previous: null }),
    );
    const stored = await alter(made, signer);
    bucket.objects.set(`${WS}/2026-12-01T09:00:00.000Z.digest.json`, Buffer.from(JSON.stringify(stored)));

    // Act
    const run = await maker.run(ms('2026-12-01T12:30:00.000Z'));

    // Assess: nothing put, the later period not digested over a broken link, and no hash or signature logged.
    expect(run).toEqual({ workspaces: 1, digests: 0, failed: 1 });
    expect(data.digests.get(WS)).toBeUndefined();
    expect(errors).toEqual([
      {
        message: 'audit digests of a workspace failed',
        attributes: { workspaceId: WS, hourStart: '2026-12-01T09:00:00.000Z', error: 'DigestConflictError' },
      },
    ]);
  });

  it('goes on with the other workspaces when one fails', async () => {
    // Prepare
    const { data, maker, errors } = setup({ workspaces: [WS, OTHER] });
    data.add(WS, timedEntry(1, '2026-12-01T09:10:00.000Z'));
    data.add(OTHER, timedEntry(2, '2026-12-01T09:20:00.000Z'));
    data.failing.add(WS);

    // Act
    const run = await maker.run(ms('2026-12-01T10:30:00.000Z'));

    // Assess
    expect(run).toEqual({ workspaces: 2, digests: 1, failed: 1 });
    expect(data.digests.get(OTHER)).toHaveLength(1);
    expect(errors).toEqual([
      { message: 'audit digests of a workspace failed', attributes: { workspaceId: WS, error: 'ThrottlingException' } },
    ]);
  });
});

describe('periodsOf', () => {
  async function* pages(...list: EntryPage[]) {
    yield* list;
  }
  const range = { from: 0, slackMs: 20 * 60_000, periodSeconds: 3600 };

  it('keeps a period open until the read is past its end by the slack, so an entry whose id is later joins it', async () => {
    // Prepare: the second entry was made in the 09:00 period, its id minted at 10:05.
    const early = timedEntry(1, '2026-12-01T09:50:00.000Z');
    const late = timedEntry(2, '2026-12-01T09:59:59.000Z', '2026-12-01T10:05:00.000Z');
    const given: number[] = [];

    // Act
    for await (const period of periodsOf(
      pages(
        { entries: [early], reachedMs: ms('2026-12-01T10:01:00.000Z') },
        { entries: [late], reachedMs: ms('2026-12-01T10:05:00.000Z') },
      ),
      range,
    ))
      given.push(period.entries.length);

    // Assess
    expect(given).toEqual([2]);
  });

  it('drops an entry of a period it gave already (its id later than its time by more than the slack)', async () => {
    // Prepare
    const given: [string, number][] = [];
    const source = pages(
      { entries: [timedEntry(1, '2026-12-01T08:10:00.000Z')], reachedMs: ms('2026-12-01T09:30:00.000Z') },
      { entries: [timedEntry(2, '2026-12-01T08:59:00.000Z', '2026-12-01T09:35:00.000Z')], reachedMs: ms('2026-12-01T09:35:00.000Z') },
    );

    // Act
    for await (const period of periodsOf(source, range)) given.push([new Date(period.start).toISOString(), period.entries.length]);

    // Assess
    expect(given).toEqual([['2026-12-01T08:00:00.000Z', 1]]);
  });

  it('gives a period as soon as the read is past its end by the slack, oldest first', async () => {
    // Prepare
    const order: string[] = [];
    const source = pages(
      { entries: [timedEntry(1, '2026-12-01T08:10:00.000Z')], reachedMs: ms('2026-12-01T08:10:00.000Z') },
      { entries: [timedEntry(2, '2026-12-01T09:10:00.000Z')], reachedMs: ms('2026-12-01T09:20:00.000Z') },
      { entries: [timedEntry(3, '2026-12-01T11:10:00.000Z')], reachedMs: ms('2026-12-01T11:10:00.000Z') },
    );

    // Act
    for await (const period of periodsOf(source, range)) order.push(new Date(period.start).toISOString());

    // Assess
    expect(order).toEqual(['2026-12-01T08:00:00.000Z', '2026-12-01T09:00:00.000Z', '2026-12-01T11:00:00.000Z']);
  });
});
