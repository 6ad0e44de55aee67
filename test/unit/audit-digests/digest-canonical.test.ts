import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditEntryAnswer } from '../../../shared/audit/audit-answers.ts';
import type { AuditEntry } from '../../../shared/audit/index.ts';
import {
  canonicalEntryLine,
  canonicalJson,
  canonicalLines,
  DIGESTED_FIELDS,
  type DigestedEntry,
  entriesSha256,
  inIdOrder,
  sha256Hex,
} from '../../../shared/audit-digests/digest-canonical.ts';
import { entry } from './support.ts';

const AT = '2026-01-02T03:04:05.678Z';
const sha = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('canonical audit lines', () => {
  it('sort object keys at every depth, arrays kept in order, with no whitespace', () => {
    // Act
    const text = canonicalJson({ b: 1, a: { d: [{ z: 1, y: { q: true, p: null } }, 2], c: 'x' } });

    // Assess
    expect(text).toBe('{"a":{"c":"x","d":[{"y":{"p":null,"q":true},"z":1},2]},"b":1}');
  });

  it('write an entry with its answered fields only, in key order, nested metadata sorted too', () => {
    // Prepare: a stored entry carries more than the API answers.
    const stored = {
      ...entry(1, AT, { metadata: { version: 3, key: 'DB_URL', via: { secretId: 'sec_9', environmentId: 'env_1' } } }),
      accountId: 'acc_1',
      packedTargets: ['sec_2'],
    };

    // Act
    const line = canonicalEntryLine(stored);

    // Assess
    expect(line).toBe(
      `{"action":"secret.reveal","actorSub":"ak_1","createdAt":"${AT}","id":"aud_00000000000000000000000001",` +
        '"metadata":{"key":"DB_URL","version":3,"via":{"environmentId":"env_1","secretId":"sec_9"}},"target":"sec_1"}',
    );
  });

  it('write non-ASCII characters as themselves and hash their UTF-8 bytes; sort keys by code unit', () => {
    // Prepare
    const unicode = entry(1, AT, { metadata: { é: 1, z: 'café 🔑 日本', A: 'x\ud800' } });
    const expected =
      `{"action":"secret.reveal","actorSub":"ak_1","createdAt":"${AT}","id":"aud_00000000000000000000000001",` +
      '"metadata":{"A":"x\\ud800","z":"café 🔑 日本","é":1},"target":"sec_1"}\n';

    // Act
    const lines = canonicalLines([unicode]);

    // Assess: 'A' < 'z' < 'é' in UTF-16 code units; only a lone surrogate is escaped (JSON.stringify's own rule).
    expect(lines).toBe(expected);
    expect(entriesSha256([unicode])).toBe(sha(expected));
    expect(Buffer.from(lines, 'utf8').includes(Buffer.from([0xc3, 0xa9]))).toBe(true);
  });

  it('leave out undefined values and write a Date as its JSON form, as the API answer does', () => {
    // Act
    const text = canonicalJson({ b: undefined, a: new Date(Date.parse(AT)), c: [undefined] });

    // Assess
    expect(text).toBe(`{"a":"${AT}","c":[null]}`);
  });

  it('join the lines in id order whatever the order given, each ended by a newline, the last one too', () => {
    // Prepare
    const [one, two, three] = [entry(1, AT), entry(2, AT), entry(3, AT)];

    // Act
    const text = canonicalLines([three!, one!, two!]);

    // Assess
    expect(text).toBe(`${canonicalEntryLine(one!)}\n${canonicalEntryLine(two!)}\n${canonicalEntryLine(three!)}\n`);
    expect(canonicalLines([])).toBe('');
  });

  it('order ids by code unit, not by locale, and never in place', () => {
    // Prepare: localeCompare would put the lowercase id between the others.
    const given = [{ id: 'aud_b' }, { id: 'aud_B' }, { id: 'aud_a' }];

    // Act
    const ordered = inIdOrder(given);

    // Assess
    expect(ordered.map(({ id }) => id)).toEqual(['aud_B', 'aud_a', 'aud_b']);
    expect(given.map(({ id }) => id)).toEqual(['aud_b', 'aud_B', 'aud_a']);
  });

  it('hash as lowercase SHA-256 hex of the UTF-8 text; a change of one character changes it', () => {
    // Act
    const hashed = sha256Hex('abc');

    // Assess: the FIPS 180-2 test vector.
    expect(hashed).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(entriesSha256([entry(1, AT)])).not.toBe(entriesSha256([entry(1, AT, { target: 'sec_2' })]));
  });

  it('cover exactly the fields GET /api/v1/audit answers, and take a stored audit entry as it is', () => {
    // Prepare: a stored entry is a DigestedEntry for the compiler too.
    const stored: AuditEntry = { ...entry(1, AT), action: 'secret.reveal', accountId: 'acc_1' };
    const digested: DigestedEntry = stored;

    // Act
    const answered = Object.keys(auditEntryAnswer().shape);

    // Assess
    expect([...DIGESTED_FIELDS].sort()).toEqual(answered.sort());
    expect(Object.keys(JSON.parse(canonicalEntryLine(digested)))).toEqual([...DIGESTED_FIELDS].sort());
  });
});
