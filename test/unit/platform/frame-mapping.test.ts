import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions, PROJECT_ROOT } from '../../../lib/lambda-bundle.ts';
import { mappedFramesOf } from '../../../shared/platform/logger.ts';

/**
 * A bundle built as every Lambda is (minified ESM, external maps without sources, the mapping a chunk) whose handler
 * throws two calls deep and prints the frames the request pipelines log, run in a Node without --enable-source-maps.
 */
describe('stack frames of a bundle', () => {
  let dir: string;
  const run = () =>
    execFileSync(process.execPath, [join(dir, 'out', 'index.mjs')], { env: { PATH: process.env.PATH, NODE_OPTIONS: '' } }).toString();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stack-frames-'));
    writeFileSync(join(dir, 'deep.ts'), 'export function failDeep(depth: number): never {\n  throw new Error(`failed at ${depth}`);\n}\n');
    writeFileSync(
      join(dir, 'entry.ts'),
      [
        `import { mappedFramesOf } from ${JSON.stringify(join(PROJECT_ROOT, 'shared/platform/logger.ts'))};`,
        "import { failDeep } from './deep.ts';",
        'export function handleRequest(): void {',
        '  failDeep(2);',
        '}',
        'try {',
        '  handleRequest();',
        '} catch (error) {',
        '  process.stdout.write((await mappedFramesOf(error)) ?? "none");',
        '}',
      ].join('\n'),
    );
    buildSync(lambdaBuildOptions(join(dir, 'entry.ts'), join(dir, 'out')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes each bundle frame at its TypeScript line and column, under the function's own name", () => {
    // Act
    const frames = run().split('\n');
    // Assess: the throw, its caller, and the module's top level, as --enable-source-maps would print them
    expect(frames.slice(0, 3)).toEqual([
      `    at failDeep (${join(dir, 'deep.ts')}:2:9)`,
      `    at handleRequest (${join(dir, 'entry.ts')}:4:3)`,
      `    at ${join(dir, 'entry.ts')}:7:3`,
    ]);
    expect(frames.join('\n')).not.toContain('index.mjs');
  });

  it('writes the frames as V8 gave them when the bundle has no map', () => {
    // Prepare
    rmSync(join(dir, 'out', 'index.mjs.map'));
    // Act
    const frames = run().split('\n');
    // Assess
    expect(frames[0]).toMatch(/^ {4}at \S+ \(file:\/\/.+\/out\/index\.mjs:\d+:\d+\)$/);
    expect(frames.join('\n')).not.toContain('.ts:');
    expect(frames.join('\n')).not.toContain('chunk-');
  });
});

describe('mappedFramesOf', () => {
  it('leaves frames outside a bundle as they are, and has none for what is not an Error', async () => {
    // Prepare
    const error = new Error('plain');
    // Act
    const frames = await mappedFramesOf(error);
    // Assess: this test file's own frame, untouched
    expect(frames?.split('\n')[0]).toMatch(/frame-mapping\.test\.ts:\d+:\d+\)?$/);
    expect(await mappedFramesOf('not an error')).toBeUndefined();
    expect(await mappedFramesOf(undefined)).toBeUndefined();
  });

  it('keeps the message out of the frames, as the logger does', async () => {
    // Prepare: a message that spans lines and looks like a frame
    const error = new Error('bad input\n    at sk_live_forged (file.ts:1:1)');
    // Act
    const frames = await mappedFramesOf(error);
    // Assess
    expect(frames).not.toContain('sk_live_');
    expect(frames).toMatch(/^\s+at /);
  });
});
