import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { entriesSha256 } from '../../../shared/audit-digests/digest-canonical.ts';
import {
  type AuditDigest,
  digestJson,
  digestPeriodSeconds,
  digestSha256,
  MAX_PERIODS_PER_RUN,
  periodDueAt,
  periodStart,
  periodsToDigest,
  signedBytes,
  unsignedDigest,
} from '../../../shared/audit-digests/digest-record.ts';
import { entry } from './support.ts';

const HOUR = '2026-03-01T10:00:00.000Z';
const at = (iso: string) => Date.parse(iso);

const signed = (overrides: Partial<AuditDigest> = {}): AuditDigest => ({
  workspaceId: 'ws_1',
  hourStart: HOUR,
  count: 2,
  firstId: 'aud_1',
  lastId: 'aud_2',
  entriesSha256: 'a'.repeat(64),
  previousDigestSha256: null,
  signature: 'MEUCIQ==',
  ...overrides,
});

describe('digest records', () => {
  it('count the entries, name the first and last in id order, hash them, and start a chain with null', () => {
    // Prepare
    const entries = [entry(3, '2026-03-01T10:30:00.000Z'), entry(1, '2026-03-01T10:10:00.000Z'), entry(2, '2026-03-01T10:20:00.000Z')];

    // Act
    const digest = unsignedDigest({ workspaceId: 'ws_1', hourStart: HOUR, entries, previous: null });

    // Assess
    expect(digest).toEqual({
      workspaceId: 'ws_1',
      hourStart: HOUR,
      count: 3,
      firstId: entries[1]!.id,
      lastId: entries[0]!.id,
      entriesSha256: entriesSha256(entries),
      previousDigestSha256: null,
    });
  });

  it('chain to the SHA-256 of the previous digest with its signature, so a re-signed one breaks the link', () => {
    // Prepare
    const previous = signed();
    const entries = [entry(1, '2026-03-01T11:10:00.000Z')];

    // Act
    const digest = unsignedDigest({ workspaceId: 'ws_1', hourStart: '2026-03-01T11:00:00.000Z', entries, previous });

    // Assess
    expect(digest.previousDigestSha256).toBe(createHash('sha256').update(digestJson(previous)).digest('hex'));
    expect(digestJson(previous)).toContain('"signature":"MEUCIQ=="');
    expect(digestSha256(signed({ signature: 'MEYCIQ==' }))).not.toBe(digest.previousDigestSha256);
  });

  it('refuse to digest a period without entries', () => {
    // Act / Assess
    expect(() => unsignedDigest({ workspaceId: 'ws_1', hourStart: HOUR, entries: [], previous: null })).toThrow(/No audit entries/);
  });

  it('sign the canonical JSON without the signature, and without any field the digest does not define', () => {
    // Prepare
    const digest = { ...signed(), extra: 'not signed' };

    // Act
    const bytes = signedBytes(digest).toString('utf8');

    // Assess
    expect(bytes).toBe(
      `{"count":2,"entriesSha256":"${'a'.repeat(64)}","firstId":"aud_1","hourStart":"${HOUR}","lastId":"aud_2",` +
        '"previousDigestSha256":null,"workspaceId":"ws_1"}',
    );
    expect(digestJson(digest)).not.toContain('extra');
  });
});

describe('digest periods', () => {
  it('default to the hour when AUDIT_DIGEST_PERIOD_SECONDS is unset or empty', () => {
    // Act / Assess
    expect(digestPeriodSeconds(undefined)).toBe(3600);
    expect(digestPeriodSeconds('')).toBe(3600);
  });

  it('take 60 and 3600 and the divisors of 3600 between', () => {
    // Act / Assess
    expect(digestPeriodSeconds('60')).toBe(60);
    expect(digestPeriodSeconds('3600')).toBe(3600);
    expect(digestPeriodSeconds(' 900 ')).toBe(900);
    expect(digestPeriodSeconds('80')).toBe(80);
  });

  it.each(['59', '30', '3601', '420', '7200', '0', '-60', '60.5', '1e2', 'hour', '99999999999999999999'])(
    'refuse %s with an error naming the setting',
    (setting) => {
      // Act / Assess
      expect(() => digestPeriodSeconds(setting)).toThrow(
        /AUDIT_DIGEST_PERIOD_SECONDS must be whole seconds from 60 to 3600 that divide 3600/,
      );
    },
  );

  it('start periods on boundaries that tile the hour, at the shortest and the longest period', () => {
    // Act / Assess
    expect(periodStart(at('2026-03-01T10:59:59.999Z'), 3600)).toBe(at('2026-03-01T10:00:00.000Z'));
    expect(periodStart(at('2026-03-01T11:00:00.000Z'), 3600)).toBe(at('2026-03-01T11:00:00.000Z'));
    expect(periodStart(at('2026-03-01T10:07:59.999Z'), 60)).toBe(at('2026-03-01T10:07:00.000Z'));
    expect(periodStart(at('2026-03-01T10:01:25.000Z'), 80)).toBe(at('2026-03-01T10:01:20.000Z'));
  });

  it('make a digest due a third of a period after its end, rounded up to the millisecond', () => {
    // Act / Assess
    expect(periodDueAt(at(HOUR), 3600)).toBe(at('2026-03-01T11:20:00.000Z'));
    expect(periodDueAt(at('2026-03-01T10:07:00.000Z'), 60)).toBe(at('2026-03-01T10:08:20.000Z'));
    expect(periodDueAt(at(HOUR), 80)).toBe(at(HOUR) + 80_000 + 26_667);
  });

  it('list the due periods after the last digest, oldest first, the one due exactly now included', () => {
    // Act
    const due = periodsToDigest({ lastHourStart: HOUR, firstEntryAt: 0, now: at('2026-03-01T13:20:00.000Z'), periodSeconds: 3600 });

    // Assess
    expect(due).toEqual(['2026-03-01T11:00:00.000Z', '2026-03-01T12:00:00.000Z']);
  });

  it('list nothing when the next period is not yet due, a millisecond early', () => {
    // Act
    const due = periodsToDigest({ lastHourStart: HOUR, firstEntryAt: 0, now: at('2026-03-01T12:19:59.999Z'), periodSeconds: 3600 });

    // Assess
    expect(due).toEqual([]);
  });

  it("start from the first entry's period when the workspace has no digest yet", () => {
    // Act
    const due = periodsToDigest({
      lastHourStart: null,
      firstEntryAt: at('2026-03-01T10:03:30.000Z'),
      now: at('2026-03-01T10:06:20.000Z'),
      periodSeconds: 60,
    });

    // Assess
    expect(due).toEqual(['2026-03-01T10:03:00.000Z', '2026-03-01T10:04:00.000Z', '2026-03-01T10:05:00.000Z']);
  });

  it('stop at the limit, so one run catching up a long gap stays short', () => {
    // Act
    const due = periodsToDigest({ lastHourStart: HOUR, firstEntryAt: 0, now: at('2026-04-01T00:00:00.000Z'), periodSeconds: 60 });
    const few = periodsToDigest({ lastHourStart: HOUR, firstEntryAt: 0, now: at('2026-04-01T00:00:00.000Z'), periodSeconds: 60, limit: 2 });

    // Assess
    expect(due).toHaveLength(MAX_PERIODS_PER_RUN);
    expect(due[0]).toBe('2026-03-01T10:01:00.000Z');
    expect(few).toEqual(['2026-03-01T10:01:00.000Z', '2026-03-01T10:02:00.000Z']);
  });
});
