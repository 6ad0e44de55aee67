import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeAge } from './duration.js';
import { privateFileRefusal, readPrivateFile, replaceFile } from './private-file.js';

export { writeFreshFile } from './private-file.js';

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

/** What to do about a snapshot file others may open. */
const SNAPSHOT_REMEDY = 'chmod 600, or let the next run that reaches the API replace it';

/** A snapshot that can be used, or why not: `reason` is absent when there is no snapshot at all. */
export type SnapshotRead = { snapshot: Snapshot; reason?: undefined } | { snapshot?: undefined; reason?: string };

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

/** Seals the values with the time they were saved and writes the snapshot; the folder is made 700 when it is new. */
export function writeSnapshot(file: string, token: string, target: SnapshotTarget, values: Record<string, string>): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(token, target), iv);
  // savedAt is sealed with the values: a file's mtime can be set by anyone who can touch it, this cannot.
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ savedAt: Date.now(), values }), 'utf8'), cipher.final()]);
  const body = JSON.stringify({
    version: 1,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: sealed.toString('base64'),
  });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  replaceFile(file, body);
}

/** Why an opened snapshot file must not be trusted, or undefined (see privateFileRefusal). */
export function snapshotFileRefusal(stat: Pick<Stats, 'isFile' | 'uid' | 'mode'>, uid: number | undefined): string | undefined {
  return privateFileRefusal(stat, uid, SNAPSHOT_REMEDY);
}

/** Why a snapshot saved at `savedAt` is too old to use at `now`, or undefined. */
export function snapshotAgeRefusal(savedAt: number, now: number, maxAgeMs: number): string | undefined {
  const age = now - savedAt;
  return age > maxAgeMs ? `it was saved ${describeAge(age)} ago, longer than --fallback-max-age (${describeAge(maxAgeMs)})` : undefined;
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
export function readSnapshot(
  file: string,
  token: string,
  target: SnapshotTarget,
  limits: { maxAgeMs: number; now?: number },
): SnapshotRead {
  const read = readPrivateFile(file, SNAPSHOT_REMEDY);
  if (!read) return {};
  if ('refusal' in read) return { reason: read.refusal };
  const snapshot = unseal(read.body, token, target);
  if (!snapshot) return { reason: 'it does not open with this token (another token or environment saved it, or it is damaged)' };
  const tooOld = snapshotAgeRefusal(snapshot.savedAt, limits.now ?? Date.now(), limits.maxAgeMs);
  return tooOld ? { reason: tooOld } : { snapshot };
}
