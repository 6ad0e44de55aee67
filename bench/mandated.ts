import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FUNCTION_ENTRIES } from '../shared/platform/functions.ts';
import { bundle, bytesByModule, BYTES_GOAL, importPairs, type Built } from './bundles.ts';
import { floorSource, type FloorClient } from './floor.ts';
import { PROJECT_ROOT } from '../lib/lambda-bundle.ts';

/**
 * The customer-named runtime packages other than the AWS SDK (the CDK and vitest never reach a bundle). The floor
 * with the customer's libraries is a function's SDK floor (bench/floor.ts) that also carries what the function uses
 * of them, used the way the function uses them, and nothing of the product's own code: its bytes and import time over
 * the SDK floor are what those libraries alone cost; what is left under a goal's ratio is the room for everything else.
 */
export const MANDATED_PACKAGES = ['zod', '@middy/core', 'aws-jwt-verify'] as const;

/**
 * The API functions that authenticate no bearer token (the login's, and the AWS API's, which checks SigV4 signatures
 * in a chain of its own): no pipeline floor of the REST chain's authentication for them.
 */
export const UNAUTHENTICATED: readonly string[] = ['auth', 'aws'];

/** What a function's own code uses of the mandated packages, read from the sources its bundle was built from. */
export interface MandatedUse {
  /** `z.<name>` (and `z.iso.<name>`) references to zod/mini's namespace, sorted. */
  zod: string[];
  /** Values imported by name from zod's core (`zod/v4/core`: check classes, `$constructor`), sorted. */
  zodCore: string[];
  /** Modules of aws-jwt-verify the code imports dynamically (loaded on the first JWT, bundled all the same). */
  jwtModules: string[];
  /** Whether the handler is a middy chain. */
  middy: boolean;
}

/** Scans the project files of a bundle (metafile inputs outside node_modules) for their use of the mandated packages. */
export function mandatedUseOf(fn: Built): MandatedUse {
  const own = Object.keys(fn.inputs).filter((path) => /^(shared|functions)\/.*\.ts$/.test(path));
  const zod = new Set<string>();
  const zodCore = new Set<string>();
  const jwtModules = new Set<string>();
  let middy = false;
  for (const path of own) {
    const source = readFileSync(join(PROJECT_ROOT, path), 'utf8');
    // A type-only import (`import type * as z`) brings no zod into the bundle: shared/secrets/secret-service.ts's,
    // which the sync worker reaches without using zod.
    if (/^import (?!type )[^;]*from 'zod\/mini'/m.test(source)) {
      // Type positions (z.infer<…>) match too; a value reference to a type-only name is just undefined.
      for (const match of source.matchAll(/\bz\.(iso\.)?([A-Za-z]\w*)/g)) zod.add(`z.${match[1] ?? ''}${match[2]}`);
    }
    for (const match of source.matchAll(/^import \{([^}]*)\} from 'zod\/v4\/core';$/gm)) {
      for (const name of match[1]!.split(',').map((part) => part.trim())) if (name !== '' && !name.startsWith('type ')) zodCore.add(name);
    }
    for (const match of source.matchAll(/import\('(aws-jwt-verify[^']*)'\)/g)) jwtModules.add(match[1]!);
    if (/^import middy from '@middy\/core';$/m.test(source)) middy = true;
  }
  return { zod: [...zod].sort(), zodCore: [...zodCore].sort(), jwtModules: [...jwtModules].sort(), middy };
}

/** Whether a function uses any mandated package at all (the webhook pipeline and the API description do not). */
export function usesMandated(use: MandatedUse): boolean {
  return use.zod.length > 0 || use.jwtModules.length > 0 || use.middy;
}

/**
 * The floor handler's source with the function's use of the mandated packages added, and nothing else. `declaration`
 * and `made` are floorSource's (the pipeline floor below names the handler itself and shares its DynamoDB client).
 */
export function mandatedFloorSource(
  name: keyof typeof FUNCTION_ENTRIES,
  use: MandatedUse,
  declaration = 'export const handler',
  made: Partial<Record<FloorClient, string>> = {},
): string {
  const lines = [floorSource(name, 'const floorHandler', made)];
  if (use.zod.length > 0) lines.push("import * as z from 'zod/mini';", `export const zodInUse = [${use.zod.join(', ')}];`);
  if (use.zodCore.length > 0)
    lines.push(`import { ${use.zodCore.join(', ')} } from 'zod/v4/core';`, `export const zodCoreInUse = [${use.zodCore.join(', ')}];`);
  use.jwtModules.forEach((module, i) => lines.push(`export const loadJwt${i} = () => import('${module}');`));
  if (use.middy) lines.push("import middy from '@middy/core';", `${declaration} = middy(floorHandler);`);
  else lines.push(`${declaration} = floorHandler;`);
  return `${lines.join('\n')}\n`;
}

/**
 * The pipeline floor of an API function: its floor with the customer's libraries, plus the product's request
 * pipeline that every route of every API function runs, with no route in it: the configuration, the DynamoDB client
 * (the floor's calls go through it, so there is one, as in the function), the authenticator of the three credential
 * kinds and its workspace reads, the idempotency records, and the middy chain (request log, error envelope, header
 * normalisation, routing, JSON body, authentication, validation, idempotency). What a function imports beyond it is
 * its routes' own code: services, stores, the cipher, route definitions (less what it loads on first use).
 */
export function pipelineFloorSource(name: keyof typeof FUNCTION_ENTRIES, use: MandatedUse): string {
  return [
    mandatedFloorSource(name, use, 'const mandatedHandler', { dynamodb: 'apiRuntime().db.doc' }),
    "import { apiRuntime } from '../shared/access/api-runtime.ts';",
    "import { makeRouteGroupHandler } from '../shared/platform/http/handler.ts';",
    'const { authenticate, idempotency } = apiRuntime();',
    'const pipeline = makeRouteGroupHandler({}, { authenticate, idempotency });',
    "export const handler = (event: any, context: any) => ('call' in event ? mandatedHandler(event, context) : pipeline(event, context));",
    '',
  ].join('\n');
}

/** One function's figures against the floor with the customer's libraries (`bundles.<function>.mandatedFloor`). */
export interface MandatedFloorResult {
  bytes: number;
  /** What its cold start reads (its SDK clients are all made at cold start, as the SDK floor makes them). */
  initBytes: number;
  /** The function's cold-start bytes over this floor's (issue 36: the AWS API function within 1.10). */
  initRatio: number;
  /** Over the SDK floor: what the customer's libraries alone weigh. */
  bytesRatio: number;
  /** Median over interleaved pairs of its whole-process import time over the SDK floor's. */
  importRatio: number;
  /** Each mandated package's bytes here and in the function itself (equal when the scan found the function's use). */
  packages: Record<string, { here: number; inFunction: number }>;
  /** Bytes the function may still carry of its own code under the bytes goal: goal × floor − these bytes. */
  roomAtGoalBytes: number;
  /** The function's own code and other packages: its bytes minus these. */
  restBytes: number;
  /**
   * The pipeline floor (pipelineFloorSource) against the SDK floor: what is left under a goal for the routes. Null for
   * the login's function, which authenticates no bearer token and so runs none of that pipeline's authentication.
   */
  pipeline: null | {
    bytes: number;
    bytesRatio: number;
    /** What its cold start reads (the SDK floor's clients are all made at cold start, as the floor makes them). */
    initBytes: number;
    importRatio: number;
  };
}

/** Bundles a function's floor with the customer's libraries and measures it against the SDK floor. */
export async function measureMandatedFloor(
  name: keyof typeof FUNCTION_ENTRIES,
  fn: Built,
  floor: Built,
  outdir: string,
  pairs: number,
): Promise<MandatedFloorResult | null> {
  const use = mandatedUseOf(fn);
  if (!usesMandated(use)) return null;
  const built = await bundle({ contents: mandatedFloorSource(name, use), name: `mandated-${name}` }, outdir);
  const ms = importPairs(built.file, floor.file, pairs);
  const pipeline = UNAUTHENTICATED.includes(name)
    ? undefined
    : await bundle({ contents: pipelineFloorSource(name, use), name: `pipeline-${name}` }, `${outdir}-pipeline`);
  const pipelineMs = pipeline && importPairs(pipeline.file, floor.file, pairs);
  const ratio = (value: number) => Math.round(value * 1000) / 1000;
  const [here, inFunction] = [bytesByModule(built.inputs), bytesByModule(fn.inputs)];
  const packages = Object.fromEntries(
    MANDATED_PACKAGES.map((pkg) => [pkg, { here: here.get(pkg) ?? 0, inFunction: inFunction.get(pkg) ?? 0 }]),
  );
  return {
    bytes: built.bytes,
    initBytes: built.initBytes,
    initRatio: ratio(fn.initBytes / built.initBytes),
    bytesRatio: ratio(built.bytes / floor.bytes),
    importRatio: ratio(ms.processRatio),
    packages,
    roomAtGoalBytes: Math.round(BYTES_GOAL * floor.bytes - built.bytes),
    restBytes: fn.bytes - built.bytes,
    pipeline:
      pipeline && pipelineMs
        ? {
            bytes: pipeline.bytes,
            bytesRatio: ratio(pipeline.bytes / floor.bytes),
            initBytes: pipeline.initBytes,
            importRatio: ratio(pipelineMs.processRatio),
          }
        : null,
  };
}

/** Bytes a package puts in a bundle. */
export function packageBytes(built: Built, pkg: string): number {
  return bytesByModule(built.inputs).get(pkg) ?? 0;
}
