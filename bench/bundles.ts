import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { bundleLambda, LAMBDA_NODE_OPTIONS, PROJECT_ROOT, reachableOutputs } from '../lib/lambda-bundle.ts';
import { FUNCTION_ENTRIES } from '../shared/platform/functions.ts';
import { floorSource } from './floor.ts';
import type { MandatedFloorResult } from './mandated.ts';
import { quantile } from './stats.ts';

/** Every Lambda of the stack: the route groups and the webhook pipeline's three. */
export const FUNCTIONS: Record<string, string> = FUNCTION_ENTRIES;

/** A bundle as the stack would ship it: every file, the code's bytes, and esbuild's account of where they come from. */
export interface Built {
  /** The code the runtime loads first (`index.mjs`). */
  file: string;
  /** Every file of the asset, source maps included, by name. */
  files: string[];
  /** Bytes of every code file of the asset (index.mjs and every chunk); source maps are not counted. */
  bytes: number;
  /** The code files a cold start reads: index.mjs and the chunks it imports statically, and theirs. */
  initFiles: string[];
  /** Their bytes. */
  initBytes: number;
  gzipBytes: number;
  /** Each input's bytes in the code (all files), from esbuild's metafile. */
  inputs: Metafile['outputs'][string]['inputs'];
}

/**
 * Bundles an entry file, or a generated source (a floor handler, written to a scratch file in the project so that
 * it resolves packages as an entry does), exactly as the CDK stack does (lib/lambda-bundle.ts), into
 * `outdir/index.mjs` and its chunks. test/infra/bundles.test.ts checks that this gives the stack's asset byte for byte.
 */
export async function bundle(source: { entry: string } | { contents: string; name: string }, outdir: string): Promise<Built> {
  mkdirSync(outdir, { recursive: true });
  const scratch = 'contents' in source ? mkdtempSync(join(PROJECT_ROOT, '.bench-src-')) : undefined;
  try {
    const entry = 'entry' in source ? join(PROJECT_ROOT, source.entry) : join(scratch!, `${source.name}.ts`);
    if ('contents' in source) writeFileSync(entry, source.contents);
    const { metafile, kept } = bundleLambda(entry, outdir);
    return built(metafile, kept, outdir);
  } finally {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The figures of a build from its metafile: bytes of all code and of what a cold start reads, inputs over all files. */
function built(metafile: Metafile, kept: string[], outdir: string): Built {
  const outputs = Object.entries(metafile.outputs).filter(([path]) => kept.includes(path));
  const code = outputs.filter(([path]) => /\.m?js$/.test(path));
  // Each code file read once.
  const contents = new Map(code.map(([path]) => [path, readFileSync(join(PROJECT_ROOT, path))]));
  const sizeOf = (paths: Iterable<string>) => [...paths].reduce((sum, path) => sum + contents.get(path)!.length, 0);
  const atInit = reachableOutputs(metafile, ['import-statement']);
  const inputs: Built['inputs'] = {};
  for (const [, output] of code) {
    for (const [path, input] of Object.entries(output.inputs))
      inputs[path] = { bytesInOutput: (inputs[path]?.bytesInOutput ?? 0) + input.bytesInOutput };
  }
  return {
    file: join(outdir, 'index.mjs'),
    files: outputs.map(([path]) => basename(path)).sort(),
    bytes: sizeOf(contents.keys()),
    initFiles: [...atInit].map((path) => basename(path)).sort(),
    initBytes: sizeOf(atInit),
    gzipBytes: [...contents.values()].reduce((sum, buffer) => sum + gzipSync(buffer).length, 0),
    inputs,
  };
}

/**
 * Every code file of a bundle, index.mjs first: importing them all reads the code of the worst first request (a JWT,
 * a value to seal or open, a url to check, a manual retry to queue), though the clients that request would make on
 * first use are not built.
 */
function everyCodeFile(built: Built): string[] {
  const chunks = built.files.filter((name) => name.endsWith('.mjs') && name !== 'index.mjs');
  return [built.file, ...chunks.map((name) => join(dirname(built.file), name))];
}

/** Bundles a function's SDK floor (bench/floor.ts) into `outdir`. */
export function bundleFloor(name: keyof typeof FUNCTION_ENTRIES, outdir: string): Promise<Built> {
  return bundle({ contents: floorSource(name), name: `floor-${name}` }, outdir);
}

/**
 * What an input counts under in a breakdown: its npm package, or its project folder (`shared/store`,
 * `functions/secrets`), or the project file itself when it sits directly in `shared/`.
 */
export function moduleOf(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  if (path.startsWith('.bench-src-')) return 'floor handler';
  const parts = path.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : path;
}

/** Bytes in the code per module (moduleOf). */
export function bytesByModule(inputs: Built['inputs']): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [path, input] of Object.entries(inputs)) sums.set(moduleOf(path), (sums.get(moduleOf(path)) ?? 0) + input.bytesInOutput);
  return sums;
}

/** The modules that put the most bytes in a function's code beyond what its floor holds of them, largest first. */
export function aboveFloor(fn: Built, floor: Built, top = 8): { module: string; bytes: number }[] {
  const floorBytes = bytesByModule(floor.inputs);
  return [...bytesByModule(fn.inputs)]
    .map(([module, bytes]) => ({ module, bytes: bytes - (floorBytes.get(module) ?? 0) }))
    .filter((entry) => entry.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}

/** Cold-start configuration the handlers read at import (values only need to parse; nothing is called). */
export const IMPORT_ENV = {
  TABLE_NAME: 'bench',
  AWS_REGION: 'us-east-1',
  KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/bench',
  DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench',
  DELIVERY_QUEUE_ARN: 'arn:aws:sqs:us-east-1:111111111111:bench',
  SCHEDULER_GROUP: 'bench',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::111111111111:role/bench',
  SYNC_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench-syncs',
  // The audit stream worker refuses to start without its queue, as the sync worker does.
  AUDIT_STREAM_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench-audit-streams',
  // The audit digester's key and bucket (lib/audit-digests.ts sets both).
  AUDIT_SIGNING_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/bench-digests',
  AUDIT_BUCKET: 'bench-audit',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

/**
 * Imports a bundle in a fresh Node process: the import itself, measured inside the process, the whole process from
 * spawn to exit (Node's own start-up included, closer to Lambda's init), and the CPU time of the whole process
 * (all its threads; less sensitive than wall time to other work on the machine), in milliseconds. Given several
 * files, it imports them one after the other (a bundle's index.mjs, then its chunks).
 */
function importOnce(
  file: string | readonly string[],
  nodeOptions = LAMBDA_NODE_OPTIONS,
): { importMs: number; processMs: number; cpuMs: number } {
  const started = performance.now();
  const script =
    'const t = performance.now(); for (const file of process.argv.slice(1)) await import(file); const ms = performance.now() - t;' +
    ' const cpu = process.cpuUsage(); process.stdout.write(JSON.stringify([ms, (cpu.user + cpu.system) / 1000]));';
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, ...(typeof file === 'string' ? [file] : file)], {
    env: { ...process.env, ...IMPORT_ENV, NODE_OPTIONS: nodeOptions },
  });
  const [importMs, cpuMs] = JSON.parse(out.toString()) as [number, number];
  return { importMs, processMs: performance.now() - started, cpuMs };
}

/** Medians of `runs` fresh-process imports of one bundle. */
function importMs(file: string, runs: number, nodeOptions?: string): { importMs: number; processMs: number } {
  const samples = Array.from({ length: runs }, () => importOnce(file, nodeOptions));
  return {
    importMs: quantile(
      samples.map((s) => s.importMs),
      0.5,
    )!,
    processMs: quantile(
      samples.map((s) => s.processMs),
      0.5,
    )!,
  };
}

/**
 * Imports bundle `a` and bundle `b` in `pairs` interleaved fresh processes (A B A B …, after one unmeasured pair),
 * so drift in the machine's load hits both alike: the medians of each, and the median of the per-pair ratios of
 * whole-process wall and CPU time.
 */
export function importPairs(a: string | readonly string[], b: string | readonly string[], pairs: number) {
  importOnce(a);
  importOnce(b);
  const as: ReturnType<typeof importOnce>[] = [];
  const bs: ReturnType<typeof importOnce>[] = [];
  for (let i = 0; i < pairs; i++) {
    as.push(importOnce(a));
    bs.push(importOnce(b));
  }
  const median = (values: number[]) => quantile(values, 0.5)!;
  return {
    a: {
      importMs: median(as.map((s) => s.importMs)),
      processMs: median(as.map((s) => s.processMs)),
      cpuMs: median(as.map((s) => s.cpuMs)),
    },
    b: {
      importMs: median(bs.map((s) => s.importMs)),
      processMs: median(bs.map((s) => s.processMs)),
      cpuMs: median(bs.map((s) => s.cpuMs)),
    },
    processRatio: median(as.map((s, i) => s.processMs / bs[i]!.processMs)),
    cpuRatio: median(as.map((s, i) => s.cpuMs / bs[i]!.cpuMs)),
  };
}

/** Interleaved import pairs per function (at least 15: one slow process must not move a median; at 21 a ratio moved by up to ±0.03 between runs). */
const IMPORT_PAIRS = 31;

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** One function's figures in bench/results.json (`bundles.<function>`). */
export interface BundleResult {
  /** Every code file of the asset (index.mjs and its chunks). */
  bytes: number;
  /** What a cold start reads: index.mjs and the chunks it imports statically; the rest loads on first use. */
  initBytes: number;
  floorInitBytes: number;
  gzipBytes: number;
  importMs: number;
  /** In-process import time over the empty handler's. */
  importRatio: number;
  processMs: number;
  /** Whole-process time over the empty handler's. */
  processRatio: number;
  /** The function's SDK floor (bench/floor.ts), bundled the same way. */
  floorBytes: number;
  floorBytesRatio: number;
  floorProcessMs: number;
  /** Median over interleaved pairs of the function's whole-process import time (wall clock) over its floor's. */
  floorImportRatio: number;
  /** The same pairs' median ratio of whole-process CPU time: steadier than wall time on a loaded machine. */
  floorCpuRatio: number;
  /**
   * The same ratio with every chunk imported after index.mjs, in the function and in its floor: the code a cold start
   * and a first request that loads every lazy part would read (a JWT, KMS, the SSRF guard, the SQS client). The
   * clients such a request makes on first use are not built here, while the floor's index.mjs builds all of its own.
   */
  everyChunkImportRatio: number;
  /** The modules with the most bytes beyond the floor (esbuild metafile), largest first. */
  aboveFloor: { module: string; bytes: number }[];
  /** The floor with the customer's libraries (bench/mandated.ts); null, with the reason beside it, when none is used. */
  mandatedFloor: MandatedFloorResult | null;
  mandatedFloorNote?: string;
}

/** The bytes goal of issue 15: every function at most 1.30× its floor. */
export const BYTES_GOAL = 1.3;

/** A further measurement of a function against its floor, made while both are built (bench/mandated.ts's). */
export type FloorExtra = (
  name: keyof typeof FUNCTION_ENTRIES,
  fn: Built,
  floor: Built,
  outdir: string,
  pairs: number,
) => Promise<MandatedFloorResult | null>;

/**
 * Size, gzip size and import time of every function (or of `only` those), as ratios to an empty handler and to the
 * function's SDK floor bundled the same way; whole-process import time against the floor is the median of `pairs`
 * (31 by default) interleaved pairs, the side ratios no budget reads (every chunk imported, the floors with the
 * customer's libraries) of `sidePairs` (as many by default). `mandatedFloor` measures each function's floor with the
 * customer's libraries.
 */
export async function measureBundles(
  options: { runs?: number; pairs?: number; sidePairs?: number; only?: readonly string[]; mandatedFloor?: FloorExtra } = {},
) {
  const { runs = 10, mandatedFloor } = options;
  const started = performance.now();
  const pairs = options.pairs ?? Math.max(IMPORT_PAIRS, runs);
  const sidePairs = options.sidePairs ?? pairs;
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const empty = await bundle({ contents: 'export const handler = async () => ({});\n', name: 'empty' }, join(dir, 'empty'));
    const baseline = importMs(empty.file, runs);
    const results: Record<string, BundleResult> = {};
    for (const [name, entry] of Object.entries(FUNCTIONS).filter(([name]) => !options.only || options.only.includes(name))) {
      const fn = await bundle({ entry }, join(dir, name));
      const floor = await bundleFloor(name as keyof typeof FUNCTION_ENTRIES, join(dir, `floor-${name}`));
      const ms = importPairs(fn.file, floor.file, pairs);
      const every = importPairs(everyCodeFile(fn), everyCodeFile(floor), sidePairs);
      const mandated =
        (await mandatedFloor?.(name as keyof typeof FUNCTION_ENTRIES, fn, floor, join(dir, `mandated-${name}`), sidePairs)) ?? null;
      results[name] = {
        bytes: fn.bytes,
        initBytes: fn.initBytes,
        floorInitBytes: floor.initBytes,
        gzipBytes: fn.gzipBytes,
        importMs: round1(ms.a.importMs),
        importRatio: round2(ms.a.importMs / baseline.importMs),
        processMs: round1(ms.a.processMs),
        processRatio: round2(ms.a.processMs / baseline.processMs),
        floorBytes: floor.bytes,
        floorBytesRatio: round2(fn.bytes / floor.bytes),
        floorProcessMs: round1(ms.b.processMs),
        floorImportRatio: round2(ms.processRatio),
        floorCpuRatio: round2(ms.cpuRatio),
        everyChunkImportRatio: round2(every.processRatio),
        aboveFloor: aboveFloor(fn, floor),
        mandatedFloor: mandated,
        ...(mandated === null
          ? { mandatedFloorNote: mandatedFloor ? 'uses none of zod, @middy/core, aws-jwt-verify' : 'not measured' }
          : {}),
      };
    }
    const sdk = await measureSdk(dir, empty, runs);
    return {
      baselineImportMs: round1(baseline.importMs),
      baselineProcessMs: round1(baseline.processMs),
      results,
      sdk,
      seconds: round1((performance.now() - started) / 1000),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What importing the SDK adds to a customer's bundle: a handler that imports `createClient` and `verifyWebhook`,
 * bundled the same way (split: what the SDK imports on first use is a chunk), against the empty handler: the bytes and
 * milliseconds of import in a fresh process of what a cold start reads with the AWS IAM login unused, and of every
 * file once it is used (the signer and the credential chain, loaded by the first IAM login; the chain as Lambda
 * bundles carry it, its environment provider).
 */
async function measureSdk(dir: string, empty: Built, runs: number) {
  // Written inside the project (bundle's scratch file), so esbuild resolves the package as a customer's bundler would.
  const contents =
    "import { createClient, verifyWebhook } from '@secrets-service/sdk';\nexport const handler = async () => [createClient, verifyWebhook].length;\n";
  const user = await bundle({ contents, name: 'sdk-user' }, join(dir, 'sdk-user'));
  // A customer's function may run without source maps: all are imported without them, interleaved.
  const samples = Array.from(
    { length: runs },
    () => [importOnce(user.file, ''), importOnce(everyCodeFile(user), ''), importOnce(empty.file, '')] as const,
  );
  const overEmpty = quantile(
    samples.map(([a, , b]) => a.importMs - b.importMs),
    0.5,
  )!;
  const usedOverEmpty = quantile(
    samples.map(([, a, b]) => a.importMs - b.importMs),
    0.5,
  )!;
  return {
    bytesOverEmpty: user.initBytes - empty.initBytes,
    importMsOverEmpty: round2(overEmpty),
    awsIamUsed: { bytesOverEmpty: user.bytes - empty.bytes, importMsOverEmpty: round2(usedOverEmpty) },
  };
}

/**
 * The bundles' table for the bench output: bytes and whole-process import time against each function's SDK floor,
 * then, per function, the modules that weigh most above its floor.
 */
export function bundleTable(results: { bundles: Record<string, BundleResult>; seconds?: number }): string {
  const rows = [
    '| function | bytes | floor bytes | bytes ratio | above floor | read at cold start (floor) | process ms | floor process ms | import ratio to floor | CPU ratio to floor | import ratio, every chunk imported |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, b] of Object.entries(results.bundles)) {
    rows.push(
      `| ${name} | ${b.bytes} | ${b.floorBytes} | ${b.floorBytesRatio} | ${b.bytes - b.floorBytes} | ${b.initBytes} (${b.floorInitBytes}) | ${b.processMs} | ${b.floorProcessMs} | ${b.floorImportRatio} | ${b.floorCpuRatio} | ${b.everyChunkImportRatio} |`,
    );
  }
  const mandated = Object.entries(results.bundles).filter(([, b]) => b.mandatedFloor !== null);
  if (mandated.length > 0) {
    rows.push(
      '',
      `the floor with the customer's libraries (zod, @middy/core, aws-jwt-verify as each function uses them, none of the product's code),`,
      "and the pipeline floor (those libraries and the product's request pipeline that every route runs, with no route):",
      '',
      `| function | floor bytes | with the libraries | their bytes ratio | their import ratio | read at cold start: the function over them | room left at ${BYTES_GOAL.toFixed(2)} | the function beyond them | pipeline floor bytes ratio | pipeline floor import ratio |`,
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const [name, b] of mandated) {
      const m = b.mandatedFloor!;
      const p = m.pipeline;
      rows.push(
        `| ${name} | ${b.floorBytes} | ${m.bytes} | ${m.bytesRatio} | ${m.importRatio} | ${b.initBytes} / ${m.initBytes} = ${m.initRatio} | ${m.roomAtGoalBytes} | ${m.restBytes} | ${p?.bytesRatio ?? '-'} | ${p?.importRatio ?? '-'} |`,
      );
    }
  }
  rows.push('', 'bytes above the floor by module (esbuild metafile, top 8):');
  for (const [name, b] of Object.entries(results.bundles)) {
    rows.push(`- ${name}: ${b.aboveFloor.map((entry) => `${entry.module} ${entry.bytes}`).join(', ')}`);
  }
  if (results.seconds !== undefined) rows.push('', `bundles measured in ${results.seconds} s`);
  return rows.join('\n');
}
