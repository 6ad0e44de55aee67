import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundle, type Built } from '../../bench/bundles.ts';
import { buildConsole } from '../../bin/console-build.ts';
import { FUNCTION_ENTRIES } from '../../shared/platform/functions.ts';
import { FUNCTION_NAMES, type FunctionName, makeOutdir } from './synth.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every function bundled once per infra run by the bench's bundle(): `dir/<name>/` and its figures. */
    functionBundles: { dir: string; built: Record<FunctionName, Built> };
    /** The web console built once per infra run (bin/console-build.ts), which every synthesized stack deploys. */
    consoleDir: string;
  }
}

/**
 * Bundles every function once for the infra project, as the bench does, for the test files that need the bench's
 * bundles (bundles.test.ts compares them with the stack's assets and floors; bundle-run.test.ts loads them in Node),
 * which each bundled all eleven before; and builds the web console once for every synth of the run.
 */
export default async function setup(project: TestProject) {
  const outdir = await makeOutdir('infra-function-bundles-');
  // As deep below the temporary folder as a synthesized asset (<tmp>/<prefix>/<cloud assembly>/asset.<hash>): the
  // source maps' relative paths, and so esbuild's chunk hashes, depend on it, and bundles.test.ts compares names.
  const dir = join(outdir.dir, 'bench');
  const built = {} as Record<FunctionName, Built>;
  for (const name of FUNCTION_NAMES) built[name] = await bundle({ entry: FUNCTION_ENTRIES[name] }, join(dir, name));
  project.provide('functionBundles', { dir, built });
  project.provide('consoleDir', (await buildConsole(join(outdir.dir, 'console'))).outdir);
  return () => outdir.cleanup();
}
