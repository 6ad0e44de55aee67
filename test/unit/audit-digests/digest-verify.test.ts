import { beforeAll, describe, expect, it } from 'vitest';
import type { DigestedEntry } from '../../../shared/audit-digests/digest-canonical.ts';
import { type AuditDigest, unsignedDigest } from '../../../shared/audit-digests/digest-record.ts';
import { makeLocalDigestSigner, signDigest } from '../../../shared/audit-digests/digest-signer.ts';
import { verifiedRange, verifyAudit, type VerifyInput } from '../../../shared/audit-digests/digest-verify.ts';
import { entry, p256 } from './support.ts';

/** The digests of `periods` (start ISO and its entries, oldest first), chained and signed with `privateKeyPem`. */
async function chainOf(
  privateKeyPem: string,
  periods: readonly { hourStart: string; entries: readonly DigestedEntry[] }[],
  workspaceId = 'ws_1',
): Promise<AuditDigest[]> {
  const signer = makeLocalDigestSigner(privateKeyPem);
  const digests: AuditDigest[] = [];
  for (const { hourStart, entries } of periods) {
    const previous = digests[digests.length - 1] ?? null;
    digests.push(await signDigest(signer, unsignedDigest({ workspaceId, hourStart, entries, previous })));
  }
  return digests;
}

const H = (hour: number) => `2026-03-01T${String(hour).padStart(2, '0')}:00:00.000Z`;
const T = (hour: number, minute: number) => `2026-03-01T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`;
const NOW = Date.parse('2026-03-02T00:00:00.000Z');
const key = p256();
const other = p256();

/** Hours 10, 11, 12 and 14 have entries (13 has none, so no digest): 9 entries in 4 digests. */
const PERIODS = [
  { hourStart: H(10), entries: [entry(1, T(10, 5)), entry(2, T(10, 6)), entry(3, T(10, 59))] },
  { hourStart: H(11), entries: [entry(4, T(11, 0)), entry(5, T(11, 30))] },
  { hourStart: H(12), entries: [entry(6, T(12, 1)), entry(7, T(12, 2)), entry(8, T(12, 3))] },
  { hourStart: H(14), entries: [entry(9, T(14, 44))] },
];
const ENTRIES = PERIODS.flatMap(({ entries }) => entries);
let DIGESTS: AuditDigest[];

beforeAll(async () => {
  DIGESTS = await chainOf(key.privateKeyPem, PERIODS);
});

function check(overrides: Partial<VerifyInput> = {}) {
  return verifyAudit({ publicKeyPem: key.publicKeyPem, entries: ENTRIES, digests: DIGESTS, since: H(0), now: NOW, ...overrides });
}

const without = <T extends { id?: string; hourStart?: string }>(items: readonly T[], drop: (item: T) => boolean) =>
  items.filter((item) => !drop(item));
const replaced = (id: string, change: Partial<DigestedEntry>) => ENTRIES.map((e) => (e.id === id ? { ...e, ...change } : e));
const digestAt = (hour: number) => DIGESTS.find((digest) => digest.hourStart === H(hour))!;
const withDigest = (hour: number, change: Partial<AuditDigest>) => DIGESTS.map((d) => (d.hourStart === H(hour) ? { ...d, ...change } : d));

describe('verifying audit entries against their digests', () => {
  it('answers the entries and digests checked when nothing was touched, whatever order they come in', () => {
    // Act
    const result = check({ entries: [...ENTRIES].reverse(), digests: [DIGESTS[2]!, DIGESTS[0]!, DIGESTS[3]!, DIGESTS[1]!] });

    // Assess
    expect(result).toEqual({ ok: true, entries: 9, digests: 4 });
  });

  it('names entry-changed for an edited entry, with its hour', () => {
    // Act
    const result = check({ entries: replaced(entry(4, '').id, { target: 'sec_other' }) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-changed', hourStart: H(11) });
  });

  it('names entry-changed when two entries swap contents but keep their ids', () => {
    // Prepare
    const [one, two] = [ENTRIES[0]!, ENTRIES[1]!];
    const swapped = [{ ...two, id: one.id }, { ...one, id: two.id }, ...ENTRIES.slice(2)];

    // Act
    const result = check({ entries: swapped });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-changed', hourStart: H(10) });
  });

  it('names entry-missing for a deleted entry, with its id when it was the first or last of its hour', () => {
    // Act
    const last = check({ entries: without(ENTRIES, (e) => e.id === entry(5, '').id) });
    const first = check({ entries: without(ENTRIES, (e) => e.id === entry(6, '').id) });
    const middle = check({ entries: without(ENTRIES, (e) => e.id === entry(2, '').id) });

    // Assess
    expect(last).toEqual({ ok: false, break: 'entry-missing', id: entry(5, '').id, hourStart: H(11) });
    expect(first).toEqual({ ok: false, break: 'entry-missing', id: entry(6, '').id, hourStart: H(12) });
    expect(middle).toEqual({ ok: false, break: 'entry-missing', hourStart: H(10) });
  });

  it('names entry-missing with the first id when all of an hour with a digest is gone', () => {
    // Act
    const result = check({ entries: without(ENTRIES, (e) => e.createdAt.startsWith('2026-03-01T11')) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-missing', id: entry(4, '').id, hourStart: H(11) });
  });

  it('names entry-added for an extra entry, with its id when it lies outside the first and last ids', () => {
    // Prepare
    const outside = entry(45, T(11, 40));
    const inside = entry(4, T(11, 10), { id: `${entry(4, '').id}x` });

    // Act
    const added = check({ entries: [...ENTRIES, outside] });
    const between = check({ entries: [...ENTRIES, inside] });

    // Assess
    expect(added).toEqual({ ok: false, break: 'entry-added', id: outside.id, hourStart: H(11) });
    expect(between).toEqual({ ok: false, break: 'entry-added', hourStart: H(11) });
  });

  it('names the lowest id outside the first and last when several were added, whatever order they come in', () => {
    // Prepare: one above lastId, one below firstId, given highest first.
    const above = entry(66, T(12, 30));
    const below = entry(6, T(12, 30), { id: `${entry(5, '').id}z` });

    // Act
    const result = check({ entries: [...ENTRIES, above, below] });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-added', id: below.id, hourStart: H(12) });
  });

  it('names digest-changed for a digest whose signature fails and whose hour has no entries left', () => {
    // Act
    const result = check({
      entries: without(ENTRIES, (e) => e.createdAt.startsWith('2026-03-01T11')),
      digests: withDigest(11, { signature: '' }),
    });

    // Assess
    expect(result).toEqual({ ok: false, break: 'digest-changed', hourStart: H(11) });
  });

  it('names entry-changed with the id when an entry took an id outside its hour, the count unchanged', () => {
    // Act
    const result = check({ entries: replaced(entry(7, '').id, { id: entry(77, '').id }) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-changed', id: entry(77, '').id, hourStart: H(12) });
  });

  it('names digest-changed for a digest field altered after signing', () => {
    // Act
    const count = check({ digests: withDigest(11, { count: 3 }) });
    const hash = check({ digests: withDigest(12, { entriesSha256: '0'.repeat(64) }) });
    const link = check({ digests: withDigest(12, { previousDigestSha256: '0'.repeat(64) }) });

    // Assess
    expect(count).toEqual({ ok: false, break: 'digest-changed', hourStart: H(11) });
    expect(hash).toEqual({ ok: false, break: 'digest-changed', hourStart: H(12) });
    expect(link).toEqual({ ok: false, break: 'digest-changed', hourStart: H(12) });
  });

  it('names digest-changed for a second digest of one hour, and for a signed digest of another workspace', async () => {
    // Prepare
    const [mine] = await chainOf(key.privateKeyPem, [PERIODS[0]!, PERIODS[1]!], 'ws_2').then((chain) => chain.slice(1));
    const foreign = { ...mine! };

    // Act
    const twice = check({ digests: [...DIGESTS, digestAt(12)] });
    const spliced = check({ digests: DIGESTS.map((d) => (d.hourStart === H(11) ? foreign : d)) });

    // Assess
    expect(twice).toEqual({ ok: false, break: 'digest-changed', hourStart: H(12) });
    expect(spliced).toEqual({ ok: false, break: 'digest-changed', hourStart: H(11) });
  });

  it('names digest-missing for an hour with entries and no digest', () => {
    // Act
    const result = check({ digests: without(DIGESTS, (d) => d.hourStart === H(11)) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'digest-missing', hourStart: H(11) });
  });

  it('names entry-added for entries put in an hour that had none, when the digests chain over that hour', () => {
    // Prepare
    const forged = [entry(95, T(13, 20)), entry(94, T(13, 10))];

    // Act
    const result = check({ entries: [...ENTRIES, ...forged] });

    // Assess
    expect(result).toEqual({ ok: false, break: 'entry-added', id: entry(94, '').id, hourStart: H(13) });
  });

  it('names digest-missing for entries after the last digest or before the first, where no chain can tell', () => {
    // Act
    const after = check({ entries: [...ENTRIES, entry(99, T(15, 1))] });
    const before = check({ entries: [entry(0, T(9, 59)), ...ENTRIES] });
    const unsignedNext = check({ entries: [...ENTRIES, entry(95, T(13, 20))], digests: withDigest(14, { signature: '' }) });

    // Assess
    expect(after).toEqual({ ok: false, break: 'digest-missing', hourStart: H(15) });
    expect(before).toEqual({ ok: false, break: 'digest-missing', hourStart: H(9) });
    expect(unsignedNext).toEqual({ ok: false, break: 'digest-missing', hourStart: H(13) });
  });

  it("names chain-broken when an hour's digest and entries are removed together", () => {
    // Act
    const result = check({
      entries: without(ENTRIES, (e) => e.createdAt.startsWith('2026-03-01T11')),
      digests: without(DIGESTS, (d) => d.hourStart === H(11)),
    });

    // Assess
    expect(result).toEqual({ ok: false, break: 'chain-broken', hourStart: H(12) });
  });

  it('names chain-broken for a validly signed digest that starts a new chain in the middle', async () => {
    // Prepare
    const restarted = await signDigest(
      makeLocalDigestSigner(key.privateKeyPem),
      unsignedDigest({ workspaceId: 'ws_1', hourStart: H(12), entries: PERIODS[2]!.entries, previous: null }),
    );

    // Act
    const result = check({ digests: DIGESTS.map((d) => (d.hourStart === H(12) ? restarted : d)) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'chain-broken', hourStart: H(12) });
  });

  it('names bad-signature for a digest whose fields hold but whose signature is by another key or damaged', async () => {
    // Prepare
    const { signature: _signature, ...fields } = digestAt(12);
    const forged = await signDigest(makeLocalDigestSigner(other.privateKeyPem), fields);

    // Act
    const byOther = check({ digests: DIGESTS.map((d) => (d.hourStart === H(12) ? forged : d)) });
    const damaged = check({ digests: withDigest(10, { signature: 'not base64 at all' }) });
    const empty = check({ digests: withDigest(14, { signature: '' }) });
    const notText = check({ digests: withDigest(11, { signature: null as unknown as string }) });

    // Assess
    expect(byOther).toEqual({ ok: false, break: 'bad-signature', hourStart: H(12) });
    expect(damaged).toEqual({ ok: false, break: 'bad-signature', hourStart: H(10) });
    expect(empty).toEqual({ ok: false, break: 'bad-signature', hourStart: H(14) });
    expect(notText).toEqual({ ok: false, break: 'bad-signature', hourStart: H(11) });
  });

  it('names bad-signature, not digest-changed, for the first digest of a range, whose link points before it', async () => {
    // Prepare
    const { signature: _signature, ...fields } = digestAt(11);
    const forged = await signDigest(makeLocalDigestSigner(other.privateKeyPem), fields);

    // Act
    const result = check({ since: H(11), digests: DIGESTS.map((d) => (d.hourStart === H(11) ? forged : d)) });

    // Assess
    expect(result).toEqual({ ok: false, break: 'bad-signature', hourStart: H(11) });
  });

  it('verifies everything with another public key as bad-signature at the first digest', () => {
    // Act
    const result = check({ publicKeyPem: other.publicKeyPem });

    // Assess
    expect(result).toEqual({ ok: false, break: 'bad-signature', hourStart: H(10) });
  });

  it('names the first break in time when there are two', () => {
    // Act
    const digestFirst = check({ entries: without(ENTRIES, (e) => e.id === entry(7, '').id), digests: withDigest(11, { count: 9 }) });
    const entryFirst = check({
      entries: replaced(entry(2, '').id, { actorSub: 'usr_x' }),
      digests: without(DIGESTS, (d) => d.hourStart === H(12)),
    });

    // Assess
    expect(digestFirst).toEqual({ ok: false, break: 'digest-changed', hourStart: H(11) });
    expect(entryFirst).toEqual({ ok: false, break: 'entry-changed', hourStart: H(10) });
  });

  it('leaves out a period whose digest is not due yet, and checks it once due', () => {
    // Prepare: the 14:00 digest is not made yet.
    const digests = without(DIGESTS, (d) => d.hourStart === H(14));

    // Act
    const early = check({ digests, now: Date.parse('2026-03-01T15:19:59.999Z') });
    const due = check({ digests, now: Date.parse('2026-03-01T15:20:00.000Z') });

    // Assess
    expect(early).toEqual({ ok: true, entries: 8, digests: 3 });
    expect(due).toEqual({ ok: false, break: 'digest-missing', hourStart: H(14) });
  });

  it('checks whole periods from since to until, the first digest anchoring the chain', () => {
    // Act
    const result = check({ since: T(11, 30), until: T(12, 1) });

    // Assess
    expect(result).toEqual({ ok: true, entries: 5, digests: 2 });
  });

  it('refuses digests of a shorter period than the one it is told, rather than naming breaks', async () => {
    // Prepare
    const minutes = [{ hourStart: T(10, 1), entries: [entry(1, '2026-03-01T10:01:30.000Z')] }];
    const digests = await chainOf(key.privateKeyPem, minutes);

    // Act / Assess
    expect(() => check({ entries: minutes[0]!.entries, digests })).toThrow(/not on a 3600-second period/);
    expect(check({ entries: minutes[0]!.entries, digests, periodSeconds: 60 })).toEqual({ ok: true, entries: 1, digests: 1 });
  });
});

describe('the range a verification covers', () => {
  it('widens since and until to whole periods', () => {
    // Act
    const range = verifiedRange({ since: T(10, 30), until: T(12, 1), periodSeconds: 3600, now: NOW });

    // Assess
    expect(range).toEqual({ from: Date.parse(H(10)), to: Date.parse(H(13)) });
  });

  it('ends at the last period due at now, until defaulting to now', () => {
    // Act
    const range = verifiedRange({ since: H(10), periodSeconds: 60, now: Date.parse('2026-03-01T10:10:19.999Z') });

    // Assess: 10:08 is due at 10:09:20, 10:09 at 10:10:20.
    expect(range).toEqual({ from: Date.parse(H(10)), to: Date.parse(T(10, 9)) });
  });

  it('covers nothing when until is before since', () => {
    // Act
    const range = verifiedRange({ since: H(12), until: H(10), periodSeconds: 3600, now: NOW });

    // Assess
    expect(range).toEqual({ from: Date.parse(H(12)), to: Date.parse(H(12)) });
  });

  it('refuses a since or until that is no time', () => {
    // Act / Assess
    expect(() => verifiedRange({ since: 'yesterday', periodSeconds: 3600, now: NOW })).toThrow(RangeError);
    expect(() => verifiedRange({ since: H(10), until: 'soon', periodSeconds: 3600, now: NOW })).toThrow(RangeError);
  });
});
