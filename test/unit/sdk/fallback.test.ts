import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseDuration } from '../../../sdk/src/duration.ts';
import { readSnapshot, snapshotAgeRefusal, snapshotFileRefusal, writeFreshFile, writeSnapshot } from '../../../sdk/src/fallback.ts';

const token = 'st_unit_test_token';
const target = { project: 'payments', env: 'prod' };
const values = { API_KEY: 'abc' };
const WEEK = 7 * 86_400_000;
const posix = typeof process.getuid === 'function';

describe('the fallback snapshot', () => {
  let folder: string;
  let victim: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'secrets-fallback-'));
    // A file someone wants overwritten through a planted link (another user's, or one of ours).
    victim = join(folder, 'victim.txt');
    writeFileSync(victim, 'untouched');
  });

  it('is written mode 600 in a folder made 700, and reads back with the same token and target only', () => {
    // Prepare
    const file = join(folder, 'cache', 'secrets', 'p.snapshot');
    // Act
    writeSnapshot(file, token, target, values);
    const read = readSnapshot(file, token, target, { maxAgeMs: WEEK });
    const otherToken = readSnapshot(file, 'st_other', target, { maxAgeMs: WEEK });
    // Assess
    expect(read.snapshot?.values).toEqual(values);
    expect(otherToken.snapshot).toBeUndefined();
    expect(otherToken.reason).toContain('does not open with this token');
    expect(readSnapshot(join(folder, 'none.snapshot'), token, target, { maxAgeMs: WEEK })).toEqual({});
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, 'cache', 'secrets')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(folder, 'cache', 'secrets'))).toEqual(['p.snapshot']);
  });

  it('replaces a symbolic link planted at the snapshot path instead of writing through it', () => {
    // Prepare
    const file = join(folder, 'p.snapshot');
    symlinkSync(victim, file);
    // Act
    writeSnapshot(file, token, target, values);
    // Assess
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readSnapshot(file, token, target, { maxAgeMs: WEEK }).snapshot?.values).toEqual(values);
  });

  it('never follows a link planted at a temporary path: the fresh file is refused, the file it points to unchanged', () => {
    // Prepare
    const temporary = join(folder, '.p.snapshot.0123.tmp');
    symlinkSync(victim, temporary);
    const dangling = join(folder, '.p.snapshot.4567.tmp');
    symlinkSync(join(folder, 'created-through-link.txt'), dangling);
    // Act / Assess
    expect(() => writeFreshFile(temporary, 'sealed')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => writeFreshFile(dangling, 'sealed')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readdirSync(folder)).not.toContain('created-through-link.txt');
  });

  it('uses no predictable temporary name: links planted at the names a writer might guess are left alone', () => {
    // Prepare
    const file = join(folder, 'p.snapshot');
    for (const guess of [`${file}.tmp`, `${file}.${process.pid}.tmp`, `${file}~`, join(folder, '.p.snapshot.tmp')])
      symlinkSync(victim, guess);
    // Act
    writeSnapshot(file, token, target, values);
    // Assess
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readSnapshot(file, token, target, { maxAgeMs: WEEK }).snapshot?.values).toEqual(values);
  });

  it.runIf(posix)('is not used when group or others may read it (mode 644), nor through a symbolic link', () => {
    // Prepare
    const file = join(folder, 'p.snapshot');
    writeSnapshot(file, token, target, values);
    const link = join(folder, 'link.snapshot');
    symlinkSync(file, link);
    // Act
    const throughLink = readSnapshot(link, token, target, { maxAgeMs: WEEK });
    chmodSync(file, 0o644);
    const open = readSnapshot(file, token, target, { maxAgeMs: WEEK });
    // Assess
    expect(throughLink).toEqual({ reason: 'it is a symbolic link' });
    expect(open.snapshot).toBeUndefined();
    expect(open.reason).toContain('its mode is 644');
  });

  it("refuses a file that is another user's, or not a regular file", () => {
    // Prepare
    const file = (uid: number, mode: number) => ({ isFile: () => true, uid, mode });
    // Act / Assess
    expect(snapshotFileRefusal(file(1000, 0o100600), 1000)).toBeUndefined();
    expect(snapshotFileRefusal(file(0, 0o100600), 1000)).toContain('owned by user 0, not by you (1000)');
    expect(snapshotFileRefusal(file(1000, 0o100640), 1000)).toContain('mode is 640');
    expect(snapshotFileRefusal(file(1000, 0o100602), 1000)).toContain('mode is 602');
    expect(snapshotFileRefusal({ isFile: () => false, uid: 1000, mode: 0o40700 }, 1000)).toContain('not a regular file');
  });

  it('is not used when its sealed savedAt is older than the maximum age, whatever the file mtime says', () => {
    // Prepare
    const file = join(folder, 'p.snapshot');
    writeSnapshot(file, token, target, values);
    const eightDaysOn = Date.now() + 8 * 86_400_000;
    // An mtime a month before the save: an age taken from it would refuse even the young read.
    const monthBefore = new Date(Date.now() - 30 * 86_400_000);
    utimesSync(file, monthBefore, monthBefore);
    // Act
    const old = readSnapshot(file, token, target, { maxAgeMs: WEEK, now: eightDaysOn });
    const young = readSnapshot(file, token, target, { maxAgeMs: 9 * 86_400_000, now: eightDaysOn });
    // Assess
    expect(old.snapshot).toBeUndefined();
    expect(old.reason).toBe('it was saved 8 days ago, longer than --fallback-max-age (7 days)');
    expect(young.snapshot?.values).toEqual(values);
    expect(snapshotAgeRefusal(0, 3_600_000, 3_600_000)).toBeUndefined();
    expect(snapshotAgeRefusal(0, 3_600_001, 3_600_000)).toContain('1 hour ago');
  });
});

describe('--fallback-max-age durations', () => {
  it('reads a whole number with one unit d, h, m or s, or plain seconds', () => {
    // Prepare / Act / Assess
    expect(['7d', '12h', '30m', '3600s', '3600', ' 2d '].map(parseDuration)).toEqual([
      WEEK,
      43_200_000,
      1_800_000,
      3_600_000,
      3_600_000,
      172_800_000,
    ]);
  });

  it('refuses anything else, and zero, naming the grammar', () => {
    // Prepare
    const bad = ['', '0', '0d', '7x', '1.5h', '-1', '1h30m', 'd', '7 d', '12H', '9999999999'];
    // Act / Assess
    for (const text of bad) expect(() => parseDuration(text), text).toThrow(/is not a duration: expected a positive whole number/);
  });
});
