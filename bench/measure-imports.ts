import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FUNCTION_ENTRIES } from '../shared/functions.ts';
import { bundle, bundleFloor, BYTES_GOAL, FUNCTIONS, importPairs } from './bundles.ts';
import { measureMandatedFloor } from './mandated.ts';

/**
 * The bundles part of the bench alone, quickly, for work on cold starts: each function and its SDK floor bundled as
 * the stack bundles them, then interleaved fresh-process import pairs. One tab-separated line a function: bytes,
 * floor bytes, bytes ratio, whole-process ms of each, and the median per-pair ratios of wall and CPU time.
 * With `--mandated`, also the floor with the customer's libraries (bench/mandated.ts): its bytes ratio and import
 * ratio to the SDK floor, for the functions that use them.
 * `node bench/measure-imports.ts [pairs] [--mandated] [function …]` (21 pairs and every function by default).
 */
const args = process.argv.slice(2);
const mandated = args.includes('--mandated');
const pairs = args.find((arg) => /^\d+$/.test(arg)) ?? '21';
const names = args.filter((arg) => arg !== '--mandated' && arg !== pairs);
const unknown = names.filter((name) => !(name in FUNCTIONS));
if (unknown.length > 0) throw new Error(`not a function: ${unknown.join(', ')} (functions: ${Object.keys(FUNCTIONS).join(', ')})`);
const dir = mkdtempSync(join(tmpdir(), 'measure-imports-'));
try {
  const extra = mandated ? '\twith libraries bytes ratio\twith libraries import ratio' : '';
  process.stdout.write(`function\tbytes\tfloor bytes\tbytes ratio\tprocess ms\tfloor process ms\timport ratio\tCPU ratio${extra}\n`);
  for (const name of names.length > 0 ? names : Object.keys(FUNCTIONS)) {
    const fn = await bundle({ entry: FUNCTIONS[name]! }, join(dir, name));
    const floor = await bundleFloor(name as keyof typeof FUNCTION_ENTRIES, join(dir, `floor-${name}`));
    const ms = importPairs(fn.file, floor.file, Number(pairs));
    const row = [name, fn.bytes, floor.bytes, (fn.bytes / floor.bytes).toFixed(3), ms.a.processMs.toFixed(1), ms.b.processMs.toFixed(1), ms.processRatio.toFixed(3), ms.cpuRatio.toFixed(3)];
    if (mandated) {
      const m = await measureMandatedFloor(name as keyof typeof FUNCTION_ENTRIES, fn, floor, join(dir, `mandated-${name}`), Number(pairs), BYTES_GOAL);
      row.push(m?.bytesRatio ?? '-', m?.importRatio ?? '-');
    }
    process.stdout.write(`${row.join('\t')}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
