import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The encrypted fallback snapshot of `secrets run` and `secrets export`: the last environment they loaded,
 * AES-256-GCM under a key derived (HKDF-SHA256) from the token and the target, so only the same credential for the
 * same environment opens it. Written atomically with mode 600. Used only when the API cannot be reached or answers
 * 5xx; never on 401, 403 or 404 (a revoked token must stop working).
 */

/** The environment a snapshot holds. */
export interface SnapshotTarget {
  project: string;
  env: string;
}

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

/** Seals and writes the snapshot (temporary file, then rename: never a half-written snapshot). */
export function writeSnapshot(file: string, token: string, target: SnapshotTarget, values: Record<string, string>): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(token, target), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ savedAt: Date.now(), values }), 'utf8'), cipher.final()]);
  const body = JSON.stringify({ version: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: sealed.toString('base64') });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, body, { mode: 0o600 });
  renameSync(temporary, file);
}

/** The snapshot's values and age, or undefined when there is none or it does not open with this token and target. */
export function readSnapshot(file: string, token: string, target: SnapshotTarget): { values: Record<string, string>; savedAt: number } | undefined {
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { iv: string; tag: string; data: string };
    const decipher = createDecipheriv('aes-256-gcm', keyFor(token, target), Buffer.from(stored.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(stored.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(stored.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as { values: Record<string, string>; savedAt: number };
  } catch {
    return undefined;
  }
}
