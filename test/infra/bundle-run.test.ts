import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { bundle, IMPORT_ENV } from '../../bench/bundles.ts';
import { LAMBDA_NODE_OPTIONS } from '../../lib/lambda-bundle.ts';
import { FUNCTION_NAMES, makeOutdir } from './synth.ts';

const run = promisify(execFile);

/** What a bundle needs in its environment to load (the bench's), credentials, and a JWT issuer. */
const ENV = {
  ...IMPORT_ENV,
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  // A JWT's keys are fetched from here: nothing listens, so verification ends in the unreachable-keys path (503)
  // after the verifier's chunks have loaded.
  JWT_ISSUER: 'https://issuer.bundle-run.test',
  JWT_AUDIENCE: 'bundle-run',
  JWT_JWKS_URI: 'https://127.0.0.1:9/.well-known/jwks.json',
  // KMS is asked here (the SDK's per-service endpoint variable): nothing listens, so a data key ends in SERVICE_UNAVAILABLE.
  AWS_ENDPOINT_URL_KMS: 'http://127.0.0.1:9',
  // The sync worker refuses to start without its queue (shared/syncs/pipeline-wiring.ts); the stack always sets it.
  SYNC_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench-syncs',
  // The audit stream worker refuses to start without its queue, as the sync worker does.
  AUDIT_STREAM_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/bench-audit-streams',
};

/** Every function bundled by the bench's bundle(), once for the infra run (test/infra/global-setup.ts). */
const { dir: bundlesDir, built } = inject('functionBundles');

/** Runs `script` as an ES module in a fresh Node (this one, the project's Node 24) with the stack's NODE_OPTIONS. */
async function node(script: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, ...args], {
    env: { PATH: process.env.PATH, ...ENV, NODE_OPTIONS: LAMBDA_NODE_OPTIONS },
  });
  return stdout;
}

/** The code files of a bundle in `dir` whose source maps name a source under `path`. */
async function filesWith(dir: string, files: readonly string[], path: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.mjs'))) {
    const map = JSON.parse(await readFile(join(dir, `${file}.map`), 'utf8')) as { sources: string[] };
    if (map.sources.some((source) => source.includes(path))) found.push(file);
  }
  return found;
}

/**
 * Runs `steps` (a module script that sets `atImport` once the bundle is imported and prints its result) with a module
 * hook that records every file Node loads in `loaded`.
 */
function recordingLoads(...steps: string[]): string {
  return [
    "import { registerHooks } from 'node:module';",
    'const loaded = [];',
    'registerHooks({ load(url, context, next) { loaded.push(url.split("/").pop()); return next(url, context); } });',
    ...steps,
  ].join('\n');
}

describe('Lambda bundles, run', () => {
  it.each(FUNCTION_NAMES)('loads every code file of %s (index.mjs and each chunk) in Node', async (name) => {
    // Prepare
    const files = (await readdir(join(bundlesDir, name))).filter((file) => file.endsWith('.mjs'));
    // Act: a chunk that fails to link, or names a missing chunk, throws here
    const loaded = await node(
      'for (const file of process.argv.slice(1)) await import(file); process.stdout.write(String(process.argv.length - 1));',
      ...files.map((file) => join(bundlesDir, name, file)),
    );
    // Assess
    expect(Number(loaded)).toBe(files.length);
  });

  it("answers a JWT request from the projects bundle after loading aws-jwt-verify's chunk, which a cold start does not read", async () => {
    // Prepare: a well-formed RS256 JWT for the configured issuer (its keys cannot be fetched)
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const jwt = `${part({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${part({ iss: ENV.JWT_ISSUER, aud: ENV.JWT_AUDIENCE, sub: 'u1', iat: now, exp: now + 300 })}.${Buffer.from('sig').toString('base64url')}`;
    const event = {
      version: '2.0',
      routeKey: 'GET /api/v1/projects',
      rawPath: '/api/v1/projects',
      rawQueryString: '',
      headers: { authorization: `Bearer ${jwt}` },
      requestContext: { http: { method: 'GET', path: '/api/v1/projects', sourceIp: '127.0.0.1' }, requestId: 'r1' },
      isBase64Encoded: false,
    };
    const dir = join(bundlesDir, 'projects');
    const jwtChunks = await filesWith(dir, built.projects.files, 'node_modules/aws-jwt-verify/');
    // Act: the modules Node loads at import and during the request, recorded by a module hook
    const out = await node(
      recordingLoads(
        'const { handler } = await import(process.argv[1]);',
        'const atImport = [...loaded];',
        "const answer = await handler(JSON.parse(process.argv[2]), { getRemainingTimeInMillis: () => 10000, awsRequestId: 'r1' });",
        'process.stdout.write(JSON.stringify({ status: answer.statusCode, body: JSON.parse(answer.body), atImport, later: loaded.slice(atImport.length) }));',
      ),
      join(dir, 'index.mjs'),
      JSON.stringify(event),
    );
    // Assess: the enveloped refusal of the verifier's error path, reached through the chunk loaded on the request
    const result = JSON.parse(out) as { status: number; body: { error: { code: string } }; atImport: string[]; later: string[] };
    expect({ status: result.status, code: result.body.error.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(jwtChunks.length).toBeGreaterThan(0);
    expect(jwtChunks.filter((file) => result.atImport.includes(file))).toEqual([]);
    expect(jwtChunks.filter((file) => result.later.includes(file))).toEqual(jwtChunks);
    expect(result.atImport.filter((file) => file.endsWith('.mjs')).sort()).toEqual([...built.projects.initFiles].sort());
  });

  it("asks KMS for a data key through an API function's cipher after loading the KMS chunk, which its cold start does not read", async () => {
    // Prepare: the cipher as the API functions make it (shared/platform/crypto/cipher-on-first-use.ts), bundled as the stack bundles,
    // against a KMS endpoint where nothing listens
    const outdir = await makeOutdir('infra-bundle-run-cipher-');
    const dir = join(outdir.dir, 'cipher-on-first-use');
    const cipher = await bundle(
      {
        contents:
          "export { cipherOnFirstUse } from '../shared/platform/crypto/cipher-on-first-use.ts';\nexport { loadConfig } from '../shared/platform/config.ts';\n",
        name: 'cipher',
      },
      dir,
    );
    const kmsChunks = await filesWith(dir, cipher.files, 'node_modules/@aws-sdk/client-kms/');
    // Act: the modules Node loads at import and during the first encrypt, recorded by a module hook
    const out = await node(
      recordingLoads(
        'const { cipherOnFirstUse, loadConfig } = await import(process.argv[1]);',
        'const sealer = cipherOnFirstUse(loadConfig(), 10);',
        'const atImport = [...loaded];',
        "const error = await sealer.encrypt('value', { workspaceId: 'ws_1' }).then(() => undefined, (e) => e);",
        'const later = loaded.slice(atImport.length);',
        "await sealer.encrypt('value', { workspaceId: 'ws_1' }).catch(() => undefined);",
        'process.stdout.write(JSON.stringify({ code: error?.code, atImport, later, again: loaded.slice(atImport.length + later.length) }));',
      ),
      join(dir, 'index.mjs'),
    );
    // Assess: KMS was asked (and refused the connection: SERVICE_UNAVAILABLE) through the chunks loaded on first use,
    // which a second value does not load again
    const result = JSON.parse(out) as { code: string; atImport: string[]; later: string[]; again: string[] };
    expect(result.code).toBe('SERVICE_UNAVAILABLE');
    expect(kmsChunks.length).toBeGreaterThan(0);
    expect(kmsChunks.filter((file) => result.atImport.includes(file))).toEqual([]);
    expect(kmsChunks.filter((file) => result.later.includes(file))).toEqual(kmsChunks);
    expect(result.again).toEqual([]);
    await outdir.cleanup();
  }, 30_000);
});
