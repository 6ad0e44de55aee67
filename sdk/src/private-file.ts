import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Files only their owner may read: the CLI's fallback snapshot and its SSO session. Created with mode 600 (never
 * chmod'd afterwards, so there is no moment when another user could open them), replaced atomically, and read only
 * when they are still the user's own regular file, closed to group and others.
 */

/** Undefined on Windows, which has no symbolic-link flag for open (and no 0o077 mode bits to check either). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

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
 * follows it. Readers see the old file or the new one, never half of one.
 */
export function replaceFile(file: string, body: string): void {
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

/**
 * Why an opened private file must not be trusted, or undefined: not a regular file, owned by another user, or
 * readable or writable by group or others (someone else could have written it, or read it). `remedy` ends the mode
 * refusal. Without `uid` (Windows, where Node has no getuid and reports no real mode bits) only the kind is checked.
 */
export function privateFileRefusal(
  stat: Pick<Stats, 'isFile' | 'uid' | 'mode'>,
  uid: number | undefined,
  remedy: string,
): string | undefined {
  if (!stat.isFile()) return 'it is not a regular file';
  if (uid === undefined) return undefined;
  if (stat.uid !== uid) return `it is owned by user ${stat.uid}, not by you (${uid})`;
  if ((stat.mode & 0o077) !== 0) return `its mode is ${(stat.mode & 0o777).toString(8)}: group or others may read or write it (${remedy})`;
  return undefined;
}

/**
 * The file's contents, read from the descriptor that was checked (O_NOFOLLOW, then fstat: no window in which the
 * path could be swapped). Answers a refusal for a link, a foreign or open file; undefined when there is no file.
 */
export function readPrivateFile(file: string, remedy: string): { body: string } | { refusal: string } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return { refusal: code === 'ELOOP' || code === 'EMLINK' ? 'it is a symbolic link' : `it cannot be opened (${code})` };
  }
  try {
    const refusal = privateFileRefusal(fstatSync(fd), process.getuid?.(), remedy);
    return refusal ? { refusal } : { body: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}
