import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { LAMBDA_NODE_OPTIONS } from '../lib/lambda-bundle.ts';
import type { FUNCTION_ENTRIES } from '../shared/platform/functions.ts';
import { bundle, bundleFloor, FUNCTIONS, IMPORT_ENV, moduleOf } from './bundles.ts';
import { areaOf } from './cpu-profile.ts';

/**
 * Where a function's cold start spends its CPU beyond its SDK floor's (issue 52): both bundled as the stack bundles
 * them, each imported in `runs` fresh processes (taking turns) under V8's sampling profiler, with the stack's Node
 * options (source maps on). Samples in the bundle are mapped back through its source map to the module they came
 * from; Node's own are named by their function (`compileSourceTextModule` is V8 parsing the bundle, the
 * `source_map_cache` ones are Node reading its source map), so the table tells the cost of bytes (parsing, source
 * maps) from the cost of what the code runs at import.
 * `node bench/import-profile.ts <function> [runs] [--files]` (15 runs; `--files`: project modules by file, not folder).
 */
const args = process.argv.slice(2);
const byFile = args.includes('--files');
const [name, runsArg] = args.filter((arg) => arg !== '--files');
if (!name || !(name in FUNCTIONS))
  throw new Error(`usage: node bench/import-profile.ts <${Object.keys(FUNCTIONS).join('|')}> [runs] [--files]`);
const runs = Number(runsArg ?? 15);

type Tally = Map<string, number>;

const dir = mkdtempSync(join(tmpdir(), 'import-profile-'));
try {
  const fn = await bundle({ entry: FUNCTIONS[name]! }, join(dir, 'function'));
  const floor = await bundleFloor(name as keyof typeof FUNCTION_ENTRIES, join(dir, 'floor'));
  const maps = new Map<string, TraceMap>();
  const mapOf = (file: string) => maps.get(file) ?? maps.set(file, new TraceMap(readFileSync(`${file}.map`, 'utf8'))).get(file)!;

  /** Where a sample belongs: the bundled module it maps to, a package, or Node's function by name. */
  const placeOf = (frame: { url: string; functionName: string; lineNumber: number; columnNumber: number }) => {
    if (frame.url.startsWith('file://') && frame.url.includes(dir)) {
      const { source } = originalPositionFor(mapOf(new URL(frame.url).pathname), {
        line: frame.lineNumber + 1,
        column: frame.columnNumber,
      });
      if (!source) return '(bundle, unmapped)';
      const path = source.replace(/^(\.\.\/)+/, '').replace(/^.*?\/(shared|functions|node_modules)\//, '$1/');
      return byFile && !path.startsWith('node_modules/') ? path : moduleOf(path);
    }
    const area = areaOf(frame.url, frame.functionName);
    return area === '(node)' ? `(node) ${frame.functionName || '(anonymous)'}` : area;
  };

  /** Self time (µs) by place of one fresh-process import of `file`. */
  const importOnce = (file: string, into: Tally) => {
    const out = mkdtempSync(join(dir, 'profile-'));
    execFileSync(
      process.execPath,
      [
        '--cpu-prof',
        '--cpu-prof-interval',
        '50',
        '--cpu-prof-dir',
        out,
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(file)});`,
      ],
      { env: { ...process.env, ...IMPORT_ENV, NODE_OPTIONS: LAMBDA_NODE_OPTIONS } },
    );
    const profile = JSON.parse(readFileSync(join(out, readdirSync(out)[0]!), 'utf8')) as {
      nodes: { id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    profile.samples.forEach((id, i) => {
      const place = placeOf(frames.get(id)!);
      into.set(place, (into.get(place) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
    rmSync(out, { recursive: true, force: true });
  };

  const ofFunction: Tally = new Map();
  const ofFloor: Tally = new Map();
  for (let i = 0; i < runs; i++) {
    importOnce(fn.file, ofFunction);
    importOnce(floor.file, ofFloor);
  }
  const ms = (tally: Tally, place?: string) =>
    (place === undefined ? [...tally.values()].reduce((a, b) => a + b, 0) : (tally.get(place) ?? 0)) / runs / 1000;
  const rows = [...new Set([...ofFunction.keys(), ...ofFloor.keys()])]
    .filter((place) => place !== '(idle)')
    .map((place) => ({ place, extra: ms(ofFunction, place) - ms(ofFloor, place), own: ms(ofFunction, place) }))
    .sort((a, b) => b.extra - a.extra);
  const lines = [
    `${name}: ${fn.initBytes} B read at cold start, its floor ${floor.initBytes} B; sampled CPU per import ${ms(ofFunction).toFixed(1)} ms, floor ${ms(ofFloor).toFixed(1)} ms (${runs} runs each)`,
    '  extra  function  (ms per import)',
    ...rows.slice(0, 40).map((row) => `${row.extra.toFixed(2).padStart(7)}  ${row.own.toFixed(2).padStart(8)}  ${row.place}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
