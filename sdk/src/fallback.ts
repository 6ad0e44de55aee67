import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describeAge } from './duration.js';

/**
 * The encrypted fallback snapshot of `secrets run` and `secrets export`: the last environment they loaded,
 * AES-256-GCM under a key derived (HKDF-SHA256) from the token and the target, so only the same credential for the
 * same environment opens it. Used only when the API cannot be reached or answers 5xx; never on 401, 403 or 404 (a
 * revoked token must stop working). Written to a fresh file and renamed over the old one; read only when it is the
 * user's own, closed to everyone else, and younger than the maximum age sealed inside it.
 */

/** The environment a snapshot holds. */
export interface SnapshotTarget {
  project: string;
  env: string;
}

/** An opened snapshot: the values and when they were saved (milliseconds since the epoch, sealed with them). */
export interface Snapshot {
  values: Record<string, string>;
  savedAt: number;
}

/** A snapshot that can be used, or why not: `reason` is absent when there is no snapshot at all. */
export type SnapshotRead = { snapshot: Snapshot; reason?: undefined } | { snapshot?: undefined; reason?: string };

/** Undefined on Windows, which has no symbolic-link flag for open (and no 0o077 mode bits to check either). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Where snapshots live: `--fallback PATH`, else `$XDG_CACHE_HOME/secrets` (default `~/.cache/secrets`), one file per
 * project and environment. The API URL is not part of it: when the API moves or is down, the snapshot still opens.
 */
export function snapshotPath(target: SnapshotTarget, explicit?: string): string {
  if (explicit) return explicit;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const name = Buffer.from(`${target.project}|${target.env}`).toString('base64url');
  return join(base, 'secrets', `${name}.snapshot`);
}

function keyFor(token: string, target: SnapshotTarget): Buffer {
  return Buffer.from(hkdfSync('sha256', token, 'secrets-cli-fallback-v1', `${target.project}|${target.env}`, 32));
}

/**
 * Creates `path` and writes `body` to it, synced to disk, mode 600. O_EXCL|O_NOFOLLOW: a file or a symbolic link
 * already there (planted by someone else) makes it fail with EEXIST instead of being written or written through.
 */
export function writeFreshFile(path: string, body: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `body` atomically: a fresh file with an unguessable name in the same folder (a rename does
 * not cross file systems), then a rename, which replaces whatever is at `file` (a symbolic link included) and never
 * follows it. Readers see the old snapshot or the new one, never half of one.
 */
function replaceFile(file: string, body: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(12).toString('hex')}.tmp`);
  try {
    writeFreshFile(temporary, body);
    renameSync(temporary, file);
  } catch (error) {
    // Only a file this call created is removed: on EEXIST the path is someone else's and stays as it is.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temporary, { force: true });
    throw error;
  }
}

/** Seals the values with the time they were saved and writes the snapshot; the folder is made 700 when it is new. */
export function writeSnapshot(file: string, token: string, target: SnapshotTarget, values: Record<string, string>): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(token, target), iv);
  // savedAt is sealed with the values: a file's mtime can be set by anyone who can touch it, this cannot.
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ savedAt: Date.now(), values }), 'utf8'), cipher.final()]);
  const body = JSON.stringify({ version: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: sealed.toString('base64') });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  replaceFile(file, body);
}

/**
 * Why an opened snapshot file must not be trusted, or undefined: not a regular file, owned by another user, or
 * readable or writable by group or others (someone else could have written it, or read it to attack its key).
 * Without `uid` (Windows, where Node has no getuid and reports no real mode bits) only the kind is checked.
 */
export function snapshotFileRefusal(stat: Pick<Stats, 'isFile' | 'uid' | 'mode'>, uid: number | undefined): string | undefined {
  if (!stat.isFile()) return 'it is not a regular file';
  if (uid === undefined) return undefined;
  if (stat.uid !== uid) return `it is owned by user ${stat.uid}, not by you (${uid})`;
  if ((stat.mode & 0o077) !== 0) return `its mode is ${(stat.mode & 0o777).toString(8)}: group or others may read or write it (chmod 600, or let the next run that reaches the API replace it)`;
  return undefined;
}

/** Why a snapshot saved at `savedAt` is too old to use at `now`, or undefined. */
export function snapshotAgeRefusal(savedAt: number, now: number, maxAgeMs: number): string | undefined {
  const age = now - savedAt;
  return age > maxAgeMs ? `it was saved ${describeAge(age)} ago, longer than --fallback-max-age (${describeAge(maxAgeMs)})` : undefined;
}

/**
 * The snapshot file's contents, read from the descriptor that was checked (O_NOFOLLOW, then fstat: no window in
 * which the path could be swapped). Answers a refusal for a link, a foreign or open file; undefined when none.
 */
function readChecked(file: string): { body: string } | { refusal: string } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return { refusal: code === 'ELOOP' || code === 'EMLINK' ? 'it is a symbolic link' : `it cannot be opened (${code})` };
  }
  try {
    const refusal = snapshotFileRefusal(fstatSync(fd), process.getuid?.());
    return refusal ? { refusal } : { body: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Opens the sealed body with this token and target; undefined when it does not (another token, or damaged). */
function unseal(body: string, token: string, target: SnapshotTarget): Snapshot | undefined {
  try {
    const stored = JSON.parse(body) as { iv: string; tag: string; data: string };
    const decipher = createDecipheriv('aes-256-gcm', keyFor(token, target), Buffer.from(stored.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(stored.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(stored.data, 'base64')), decipher.final()]);
    const snapshot = JSON.parse(plain.toString('utf8')) as Snapshot;
    return Number.isFinite(snapshot.savedAt) ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The snapshot when it may be used: the user's own file, closed to others, opening with this token and target,
 * and saved at most `maxAgeMs` before `now`. Otherwise why not (printed by the CLI), or nothing when there is none.
 */
export function readSnapshot(file: string, token: string, target: SnapshotTarget, limits: { maxAgeMs: number; now?: number }): SnapshotRead {
  const read = readChecked(file);
  if (!read) return {};
  if ('refusal' in read) return { reason: read.refusal };
  const snapshot = unseal(read.body, token, target);
  if (!snapshot) return { reason: 'it does not open with this token (another token or environment saved it, or it is damaged)' };
  const tooOld = snapshotAgeRefusal(snapshot.savedAt, limits.now ?? Date.now(), limits.maxAgeMs);
  return tooOld ? { reason: tooOld } : { snapshot };
}
