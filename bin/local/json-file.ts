import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The local stack's state files: JSON written whole through a rename, read back with their version checked. */

/** Writes through a temporary file and a rename, so a crash never leaves half a file behind. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * The record under `field` of a `{version: 1, [field]: {…}}` file; an empty record when the file does not exist yet.
 * Any other file there (not JSON, another version, no such record) throws, naming the file and what it should be.
 */
export async function readVersionedRecord<T>(file: string, field: string, what: string): Promise<Record<string, T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return {};
    throw error;
  }
  let parsed: Record<string, unknown> | null;
  try {
    parsed = JSON.parse(text) as Record<string, unknown> | null;
  } catch {
    parsed = null;
  }
  const record = parsed?.[field];
  if (parsed?.version !== 1 || typeof record !== 'object' || record === null) throw new Error(`${file} is not a ${what} (version 1)`);
  return record as Record<string, T>;
}
