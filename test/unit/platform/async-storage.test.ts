import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../lib/lambda-bundle.ts';
import { storageOnFirstRun } from '../../../shared/platform/async-storage.ts';

describe('storageOnFirstRun', () => {
  it('answers the value of the work running now, and nothing outside it', async () => {
    // Prepare
    const storage = storageOnFirstRun<string>();
    // Act
    const before = storage.getStore();
    const inside = await storage.run('aws', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return storage.getStore();
    });
    const nested = storage.run('outer', () => storage.run('inner', () => storage.getStore()));
    // Assess
    expect({ before, inside, nested, after: storage.getStore() }).toEqual({
      before: undefined,
      inside: 'aws',
      nested: 'inner',
      after: undefined,
    });
  });

  it("loads Node's async-context internals on the first run, not before (a cold start without one does without them)", () => {
    // Act: a fresh Node that makes a store, reads it, then runs in it
    const script = [
      `const { storageOnFirstRun } = await import(${JSON.stringify(join(PROJECT_ROOT, 'shared/platform/async-storage.ts'))});`,
      "const loaded = () => process.moduleLoadList.some((m) => m.startsWith('NativeModule internal/async_local_storage/'));",
      'const storage = storageOnFirstRun();',
      'storage.getStore();',
      'const before = loaded();',
      "storage.run('x', () => storage.getStore());",
      'process.stdout.write(JSON.stringify({ before, after: loaded() }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH } }).toString();
    // Assess
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
