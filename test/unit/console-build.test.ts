import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, type ConsoleBuild } from '../../bin/console-build.ts';

/** The web console's build: hashed files, no inline script, and a first load within its budget (issue 28). */
const BUDGET_GZIP_BYTES = 100 * 1024;

let dir: string;
let built: ConsoleBuild;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  built = await buildConsole(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the console build', () => {
  it('loads at most 100 KB of compressed JavaScript and CSS on the first load', () => {
    console.log(`console first load: ${built.firstLoad.join(', ')}: ${built.firstLoadGzipBytes} bytes gzipped`);
    expect(built.firstLoadGzipBytes).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('names every asset by its content hash and links them from index.html, with no inline script or style', () => {
    for (const file of built.files.filter((name) => name.startsWith('assets/')))
      expect(file).toMatch(/^assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/);
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    for (const file of built.firstLoad.filter((name) => !name.includes('chunk-'))) expect(html).toContain(`/console/${file}`);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
  });
});
