import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';

/** The repository root: entries and aliases are resolved from here, not from the cwd. */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Module substitutions of the Lambda bundles. Lambda hands a function its role's credentials in environment
 * variables, so the SDK's default chain (SSO, INI, process, web identity, IMDS, and the STS and SSO clients they
 * carry) is replaced by the environment provider alone. Paths are relative to the project root.
 */
const LAMBDA_ALIASES = { '@aws-sdk/credential-provider-node': './shared/platform/clients/lambda-credentials.ts' } as const;

/** Makes `require` exist in the ESM bundle, for the CommonJS dependencies that esbuild inlines. */
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * How every Lambda is bundled, by the stack (lib/service-function.ts) and by the bench (bench/bundles.ts) alike:
 * everything bundled, the AWS SDK included (a pinned, tree-shaken SDK beats the runtime's on cold start), minified
 * ESM for Node 24 into `outdir/index.mjs`, with external source maps without sources (stack traces need only the
 * mappings; embedding the sources would double the asset).
 *
 * Split (esbuild `splitting`): what the code imports dynamically, `await import(…)`, lands in its own `chunk-*.mjs`,
 * which Node reads only when that import first runs. So aws-jwt-verify (on the first JWT), the API functions' cipher
 * with its KMS client (on the first value, shared/platform/crypto/cipher-on-first-use.ts), webhook-deliveries' queue (on the first
 * manual retry) and the webhooks function's SSRF guard and sender (on the first url check) cost nothing at a cold
 * start that does not need them. Without splitting, esbuild inlines them into index.mjs, where V8 parses them at
 * every cold start. `bundleLambda` builds with these options and prunes.
 */
export function lambdaBuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: entry },
    absWorkingDir: PROJECT_ROOT,
    outdir,
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    alias: LAMBDA_ALIASES,
    logLevel: 'error',
    metafile: true,
  };
}

/**
 * The NODE_OPTIONS every function runs with (lib/service-function.ts sets none when empty), and the bench imports
 * bundles with: none. `--enable-source-maps` made Node read and decode each bundle's map while it loads (measured
 * 2026-12-07: 11-12 ms of the secrets and auth functions' 82-85 ms cold start, 5 of their SDK floors'), for stack
 * traces that only an unexpected error writes. The maps still ship beside the code, and the logger reads one with the
 * first unexpected error it writes (shared/platform/source-maps/frame-mapping.ts), so logged frames still point at the
 * TypeScript.
 */
export const LAMBDA_NODE_OPTIONS: string = '';

/**
 * Bundles an entry as every Lambda is bundled (lambdaBuildOptions) into `outdir`, then deletes what no import can
 * reach (pruneUnreachable): the metafile, and the files kept, relative to the project root.
 */
export function bundleLambda(entry: string, outdir: string): { metafile: Metafile; kept: string[] } {
  const metafile = buildSync(lambdaBuildOptions(entry, outdir)).metafile!;
  return { metafile, kept: pruneUnreachable(metafile) };
}

/**
 * Deletes the chunks no import can reach from index.mjs, with their source maps. esbuild makes a chunk of every
 * dynamic import it finds before tree shaking drops the code that held it, so the SDK leaves a few behind (bowser,
 * 34 KB, for a browser user agent a Node function never computes): they would never load, only fill the asset.
 * Returns the files kept, relative to the working directory, as the metafile names them.
 */
export function pruneUnreachable(metafile: Metafile): string[] {
  const reachable = reachableOutputs(metafile, ['import-statement', 'dynamic-import']);
  const codeOf = (path: string) => (path.endsWith('.map') ? path.slice(0, -'.map'.length) : path);
  for (const path of Object.keys(metafile.outputs)) {
    if (!reachable.has(codeOf(path))) rmSync(join(PROJECT_ROOT, path), { force: true });
  }
  return Object.keys(metafile.outputs).filter((path) => reachable.has(codeOf(path)));
}

/**
 * The code outputs index.mjs reaches through imports of the given kinds, itself included: with static imports only,
 * what a cold start reads; with dynamic ones too, everything that can ever load.
 */
export function reachableOutputs(
  metafile: Metafile,
  kinds: readonly Metafile['outputs'][string]['imports'][number]['kind'][],
): Set<string> {
  const outputs = metafile.outputs;
  const reachable = new Set([Object.keys(outputs).find((path) => path.endsWith('index.mjs'))!]);
  for (const path of reachable) {
    for (const edge of outputs[path]!.imports)
      if (!edge.external && kinds.includes(edge.kind) && edge.path in outputs) reachable.add(edge.path);
  }
  return reachable;
}
