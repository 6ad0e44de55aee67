import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { FUNCTION_ENTRIES } from '../shared/functions.ts';
import { quantile } from './stats.ts';

/** Every Lambda of the stack: the route groups and the webhook pipeline's three. */
export const FUNCTIONS: Record<string, string> = FUNCTION_ENTRIES;

/** Module substitutions of the Lambda bundles (the same map lib/service-function.ts passes to esbuild). */
export const LAMBDA_ALIASES = { '@aws-sdk/credential-provider-node': './shared/clients/lambda-credentials.ts' };

/** Bundles one entry the way the CDK stack does (lib/service-function.ts): minified, tree-shaken ESM for Node 24. */
async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    treeShaking: true,
    sourcemap: 'external',
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    alias: LAMBDA_ALIASES,
    logLevel: 'error',
  });
}

/** Cold-start configuration the handlers read at import (values only need to parse; nothing is called). */
const IMPORT_ENV = {
  TABLE_NAME: 'bench',
  AWS_REGION: 'us-east-1',
  KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/bench',
  DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench',
  DELIVERY_QUEUE_ARN: 'arn:aws:sqs:us-east-1:111111111111:bench',
  SCHEDULER_GROUP: 'bench',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::111111111111:role/bench',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

/**
 * Milliseconds to import a bundle in a fresh Node process (median of `runs`): the import itself, measured inside
 * the process, and the whole process from spawn to exit (Node's own start-up included, closer to Lambda's init).
 */
function importMs(file: string, runs: number): { importMs: number; processMs: number } {
  const imports: number[] = [];
  const processes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', 'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));', file],
      { env: { ...process.env, ...IMPORT_ENV } },
    );
    processes.push(performance.now() - started);
    imports.push(Number(out.toString()));
  }
  return { importMs: quantile(imports, 0.5)!, processMs: quantile(processes, 0.5)! };
}

/** Size, gzip size and import time (as a ratio to an empty handler bundled the same way) of every function. */
export async function measureBundles(runs = 10) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const emptyEntry = join(dir, 'empty.ts');
  writeFileSync(emptyEntry, 'export const handler = async () => ({});\n');
  await bundle(emptyEntry, join(dir, 'empty.mjs'));
  const baseline = importMs(join(dir, 'empty.mjs'), runs);
  const round1 = (value: number) => Math.round(value * 10) / 10;
  const results: Record<string, { bytes: number; gzipBytes: number; importMs: number; importRatio: number; processMs: number; processRatio: number }> = {};
  for (const [name, entry] of Object.entries(FUNCTIONS)) {
    const file = join(dir, `${name}.mjs`);
    await bundle(entry, file);
    const code = readFileSync(file);
    const ms = importMs(file, runs);
    results[name] = {
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      importMs: round1(ms.importMs),
      importRatio: Math.round((ms.importMs / baseline.importMs) * 100) / 100,
      processMs: round1(ms.processMs),
      processRatio: Math.round((ms.processMs / baseline.processMs) * 100) / 100,
    };
  }
  return { baselineImportMs: round1(baseline.importMs), baselineProcessMs: round1(baseline.processMs), results, sdk: await measureSdk(dir, baseline, runs) };
}

/**
 * What importing the SDK adds to a customer's bundle: a handler that imports `createClient` and `verifyWebhook`,
 * bundled the same way, against the empty handler (bytes, and milliseconds of import in a fresh process).
 */
async function measureSdk(dir: string, empty: { importMs: number }, runs: number) {
  // Inside the project, so esbuild resolves the package as a customer's bundler would (node_modules).
  const local = mkdtempSync(join(process.cwd(), '.bench-sdk-'));
  const entry = join(local, 'sdk-user.ts');
  writeFileSync(entry, "import { createClient, verifyWebhook } from '@secrets-service/sdk';\nexport const handler = async () => [createClient, verifyWebhook].length;\n");
  try {
    await bundle(entry, join(dir, 'sdk-user.mjs'));
  } finally {
    rmSync(local, { recursive: true, force: true });
  }
  const bytes = readFileSync(join(dir, 'sdk-user.mjs')).length - readFileSync(join(dir, 'empty.mjs')).length;
  const ms = importMs(join(dir, 'sdk-user.mjs'), runs);
  return { bytesOverEmpty: bytes, importMsOverEmpty: Math.round((ms.importMs - empty.importMs) * 100) / 100 };
}
