import { readFileSync, writeFileSync } from 'node:fs';
import { permissionTable } from '../shared/access/index.ts';

/** The files that show the permission table, between these markers. */
export const PERMISSION_TABLE_FILES = ['README.md', 'docs/permissions.md'] as const;
const START = '<!-- permission-table:start -->';
const END = '<!-- permission-table:end -->';

/** `text` with the block between the markers replaced by the table printed from shared/access/permissions.ts. */
export function withPermissionTable(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end < start) throw new Error(`the markers ${START} and ${END} are missing`);
  return `${text.slice(0, start + START.length)}\n${permissionTable()}\n${text.slice(end)}`;
}

if (import.meta.main) {
  for (const file of PERMISSION_TABLE_FILES) {
    const path = new URL(`../${file}`, import.meta.url);
    writeFileSync(path, withPermissionTable(readFileSync(path, 'utf8')));
  }
  process.stdout.write(`permission table written to ${PERMISSION_TABLE_FILES.join(' and ')}\n`);
}
