import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVersionedRecord, writeJsonAtomic } from '../../../bin/local/json-file.ts';

describe("the local stack's state files", () => {
  const dir = mkdtempSync(join(tmpdir(), 'json-file-'));

  it('reads back what was written, and an empty record before the first write', async () => {
    // Prepare
    const file = join(dir, 'functions.json');
    // Act
    const before = await readVersionedRecord(file, 'functions', 'local functions file');
    await writeJsonAtomic(file, { version: 1, functions: { rotator: { handler: '/x.ts' } } });
    // Assess: the record, and no temporary file left beside it
    expect(before).toEqual({});
    expect(await readVersionedRecord(file, 'functions', 'local functions file')).toEqual({ rotator: { handler: '/x.ts' } });
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version": 1, "functions": '],
    ['another version', '{"version": 2, "functions": {}}'],
    ['no such record', '{"version": 1, "schedules": {}}'],
  ])('refuses a file that is %s, naming it and what it should be', async (_case, text) => {
    // Prepare
    const file = join(dir, `bad-${_case.replaceAll(' ', '-')}.json`);
    writeFileSync(file, text);
    // Act
    const read = readVersionedRecord(file, 'functions', 'local functions file');
    // Assess
    await expect(read).rejects.toThrow(`${file} is not a local functions file (version 1)`);
  });
});
