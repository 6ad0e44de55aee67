import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FUNCTION_ENTRIES } from '../shared/functions.ts';
import { bundle, bundleFloor, FUNCTIONS, importPairs } from './bundles.ts';

/**
 * The bundles part of the bench alone, quickly, for work on cold starts: each function and its SDK floor bundled as
 * the stack bundles them, then interleaved fresh-process import pairs. One tab-separated line a function: bytes,
 * floor bytes, bytes ratio, whole-process ms of each, and the median per-pair ratios of wall and CPU time.
 * `node bench/measure-imports.ts [pairs] [function …]` (21 pairs and every function by default).
 */
const [pairs = '21', ...names] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'measure-imports-'));
try {
  process.stdout.write('function\tbytes\tfloor bytes\tbytes ratio\tprocess ms\tfloor process ms\timport ratio\tCPU ratio\n');
  for (const name of names.length > 0 ? names : Object.keys(FUNCTIONS)) {
    const fn = await bundle({ entry: FUNCTIONS[name]! }, join(dir, name));
    const floor = await bundleFloor(name as keyof typeof FUNCTION_ENTRIES, join(dir, `floor-${name}`));
    const ms = importPairs(fn.file, floor.file, Number(pairs));
    const row = [name, fn.bytes, floor.bytes, (fn.bytes / floor.bytes).toFixed(3), ms.a.processMs.toFixed(1), ms.b.processMs.toFixed(1), ms.processRatio.toFixed(3), ms.cpuRatio.toFixed(3)];
    process.stdout.write(`${row.join('\t')}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
