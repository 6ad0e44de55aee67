import { describe, expect, it } from 'vitest';
import { childEnvironment, isProtectedEnvName, platformNameCase } from '../../../sdk/src/child-env.ts';

const parent = { PATH: '/usr/bin:/bin', HOME: '/home/me', NODE_OPTIONS: '--max-old-space-size=512' };

/** The environment `secrets run` would give its command, and the skip lines it would print. */
function build(values: Record<string, string>, allowed: string[] = [], nameCase: 'exact' | 'insensitive' = 'exact') {
  const lines: string[] = [];
  const env = childEnvironment(values, parent, { allowed, nameCase, skip: (key, why) => lines.push(`skipped ${key}: ${why}`) });
  return { env, lines };
}

describe('the environment of `secrets run`', () => {
  it('never lets a secret set NODE_OPTIONS, PATH or any other protected name: the parent keeps its own value, and each is named', () => {
    // Prepare
    const values = { NODE_OPTIONS: '--require=/tmp/evil.js', PATH: '/tmp/evil', LD_PRELOAD: '/tmp/evil.so', DYLD_INSERT_LIBRARIES: '/tmp/evil.dylib', BASH_ENV: '/tmp/evil.sh', API_KEY: 'abc' };
    // Act
    const { env, lines } = build(values);
    // Assess
    expect(env).toMatchObject({ PATH: '/usr/bin:/bin', NODE_OPTIONS: '--max-old-space-size=512', API_KEY: 'abc' });
    expect(env.LD_PRELOAD).toBeUndefined();
    expect(env.DYLD_INSERT_LIBRARIES).toBeUndefined();
    expect(env.BASH_ENV).toBeUndefined();
    expect(lines).toHaveLength(5);
    expect(lines).toContain('skipped NODE_OPTIONS: a secret may not set it (it changes how the command starts); pass --allow-env NODE_OPTIONS to allow it');
    expect(lines.join('\n')).not.toContain('evil');
  });

  it('lets a secret set exactly the protected names --allow-env names', () => {
    // Prepare
    const values = { NODE_OPTIONS: '--no-deprecation', PATH: '/tmp/evil', DYLD_INSERT_LIBRARIES: '/tmp/a', DYLD_LIBRARY_PATH: '/tmp/b' };
    // Act
    const { env, lines } = build(values, ['NODE_OPTIONS', 'DYLD_LIBRARY_PATH']);
    // Assess
    expect(env).toMatchObject({ NODE_OPTIONS: '--no-deprecation', PATH: '/usr/bin:/bin', DYLD_LIBRARY_PATH: '/tmp/b' });
    expect(env.DYLD_INSERT_LIBRARIES).toBeUndefined();
    expect(lines.map((line) => line.split(':')[0])).toEqual(['skipped PATH', 'skipped DYLD_INSERT_LIBRARIES']);
  });

  it('matches names exactly on POSIX (lower-case `path` is another variable) and without case on Windows', () => {
    // Prepare / Act
    const posix = build({ path: 'x', Node_Options: 'y' });
    const windows = build({ Path: 'C:\\evil' }, [], 'insensitive');
    const windowsAllowed = build({ Path: 'C:\\mine' }, ['PATH'], 'insensitive');
    // Assess
    expect([posix.env.path, posix.env.Node_Options, posix.lines]).toEqual(['x', 'y', []]);
    expect([windows.env.Path, windows.lines.length]).toEqual([undefined, 1]);
    expect(windowsAllowed.env.Path).toBe('C:\\mine');
    expect([platformNameCase('win32'), platformNameCase('linux'), platformNameCase('darwin')]).toEqual(['insensitive', 'exact', 'exact']);
  });

  it('names every protected variable of the contract, DYLD_ as a prefix, and nothing that merely resembles one', () => {
    // Prepare
    const named = ['PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'DYLD_FALLBACK_LIBRARY_PATH', 'BASH_ENV', 'ENV', 'PYTHONPATH', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS'];
    const ordinary = ['DATABASE_URL', 'MY_PATH', 'PATH_PREFIX', 'ENVIRONMENT', 'NODE_ENV', 'XDYLD_X'];
    // Act / Assess
    expect(named.filter((name) => !isProtectedEnvName(name))).toEqual([]);
    expect(ordinary.filter((name) => isProtectedEnvName(name))).toEqual([]);
  });

  it('still skips, with a warning, a key that is not a variable name', () => {
    // Prepare / Act
    const { env, lines } = build({ 'db/url': 'postgres://x' });
    // Assess
    expect(env['db/url']).toBeUndefined();
    expect(lines).toEqual(['skipped db/url: not a valid environment variable name']);
  });
});
