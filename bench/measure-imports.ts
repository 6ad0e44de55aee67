import { FUNCTIONS, measureBundles } from './bundles.ts';
import { measureMandatedFloor } from './mandated.ts';

/**
 * The bundles part of the bench alone (bench/bundles.ts's measureBundles), quickly, for work on cold starts: each
 * function and its SDK floor bundled as the stack bundles them, then interleaved fresh-process import pairs. One
 * tab-separated line a function: bytes, floor bytes, bytes ratio, whole-process ms of each, the median per-pair
 * ratios of wall and CPU time, and of wall time with every chunk of both imported too. With `--mandated`, also the
 * floor with the customer's libraries (bench/mandated.ts): its bytes ratio and import ratio to the SDK floor, for the
 * functions that use them, and the same of the pipeline floor (those libraries and the product's request pipeline, no
 * route).
 * `node bench/measure-imports.ts [pairs] [--mandated] [function …]` (the bench's 31 pairs and every function by default).
 */
const args = process.argv.slice(2);
const mandated = args.includes('--mandated');
const pairs = args.find((arg) => /^\d+$/.test(arg));
const names = args.filter((arg) => arg !== '--mandated' && arg !== pairs);
const unknown = names.filter((name) => !(name in FUNCTIONS));
if (unknown.length > 0) throw new Error(`not a function: ${unknown.join(', ')} (functions: ${Object.keys(FUNCTIONS).join(', ')})`);

const { results } = await measureBundles({
  ...(pairs !== undefined && { pairs: Number(pairs) }),
  ...(names.length > 0 && { only: names }),
  ...(mandated && { mandatedFloor: measureMandatedFloor }),
});
const extra = mandated
  ? '\twith libraries bytes ratio\twith libraries import ratio\tpipeline floor bytes ratio\tpipeline floor import ratio'
  : '';
process.stdout.write(
  `function\tbytes\tfloor bytes\tbytes ratio\tprocess ms\tfloor process ms\timport ratio\tCPU ratio\tevery chunk${extra}\n`,
);
for (const [name, b] of Object.entries(results)) {
  const row = [
    name,
    b.bytes,
    b.floorBytes,
    b.floorBytesRatio,
    b.processMs,
    b.floorProcessMs,
    b.floorImportRatio,
    b.floorCpuRatio,
    b.everyChunkImportRatio,
  ];
  if (mandated) {
    const m = b.mandatedFloor;
    row.push(m?.bytesRatio ?? '-', m?.importRatio ?? '-', m?.pipeline?.bytesRatio ?? '-', m?.pipeline?.importRatio ?? '-');
  }
  process.stdout.write(`${row.join('\t')}\n`);
}
