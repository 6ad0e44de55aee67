import { describe, expect, it } from 'vitest';
import { childEnvironment, isProtectedEnvName, platformNameCase, withoutProtected } from '../../../sdk/src/child-env.ts';

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
    const values = {
      NODE_OPTIONS: '--require=/tmp/evil.js',
      PATH: '/tmp/evil',
      LD_PRELOAD: '/tmp/evil.so',
      DYLD_INSERT_LIBRARIES: '/tmp/evil.dylib',
      BASH_ENV: '/tmp/evil.sh',
      API_KEY: 'abc',
    };
    // Act
    const { env, lines } = build(values);
    // Assess
    expect(env).toMatchObject({ PATH: '/usr/bin:/bin', NODE_OPTIONS: '--max-old-space-size=512', API_KEY: 'abc' });
    expect(env.LD_PRELOAD).toBeUndefined();
    expect(env.DYLD_INSERT_LIBRARIES).toBeUndefined();
    expect(env.BASH_ENV).toBeUndefined();
    expect(lines).toHaveLength(5);
    expect(lines).toContain(
      'skipped NODE_OPTIONS: a secret may not set it (it changes how the command starts); pass --allow-env NODE_OPTIONS to allow it',
    );
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
    const named = [
      'PATH',
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'DYLD_INSERT_LIBRARIES',
      'DYLD_FALLBACK_LIBRARY_PATH',
      'BASH_ENV',
      'ENV',
      'PYTHONPATH',
      'PYTHONSTARTUP',
      'PERL5OPT',
      'RUBYOPT',
      'JAVA_TOOL_OPTIONS',
    ];
    const ordinary = ['DATABASE_URL', 'MY_PATH', 'PATH_PREFIX', 'ENVIRONMENT', 'XDYLD_X'];
    // Act / Assess
    expect(named.filter((name) => !isProtectedEnvName(name))).toEqual([]);
    expect(ordinary.filter((name) => isProtectedEnvName(name))).toEqual([]);
  });

  it('names every v1.3 family from its first letter on, and nothing one letter short of it or merely containing it', () => {
    // Prepare: the contract's prefixes; the prefix itself and one more letter are protected, one letter less is not
    const prefixes = ['LD_', 'DYLD_', 'BASH_', 'PYTHON', 'PERL', 'RUBY', 'NODE_', 'JAVA_', '_JAVA_', 'JDK_', 'GIT_'];
    const inside = prefixes.flatMap((prefix) => [prefix, `${prefix}X`]);
    const outside = [
      ...prefixes.map((prefix) => prefix.slice(0, -1)),
      ...prefixes.map((prefix) => `X${prefix}X`),
      'LDX',
      'PYTHO',
      'JAVAX',
      'GITHUB_TOKEN',
      'RUBX',
      'PERX',
    ];
    // Act / Assess
    expect(inside.filter((name) => !isProtectedEnvName(name))).toEqual([]);
    expect(outside.filter((name) => isProtectedEnvName(name))).toEqual([]);
    expect(
      ['LD_AUDIT', 'PYTHONWARNINGS', 'GIT_SSH_COMMAND', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS', 'NODE_ENV', 'BASH_FUNC_X'].filter(
        (name) => !isProtectedEnvName(name),
      ),
    ).toEqual([]);
  });

  it('names every v1.3 whole name, and neither a longer nor a shorter one', () => {
    // Prepare
    const names = ['SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'BROWSER', 'GCONV_PATH', 'EDITOR', 'VISUAL', 'PAGER'];
    const near = [...names.map((name) => `${name}X`), ...names.map((name) => name.slice(0, -1)), 'PS3', 'MY_EDITOR'];
    // Act / Assess
    expect(names.filter((name) => !isProtectedEnvName(name))).toEqual([]);
    expect(near.filter((name) => isProtectedEnvName(name))).toEqual([]);
  });

  it('compares prefixes and names exactly on POSIX and without case on Windows', () => {
    // Prepare
    const lower = ['ld_audit', 'Pythonwarnings', 'git_ssh_command', '_java_options', 'ps4', 'Shellopts', 'browser'];
    // Act / Assess
    expect(lower.filter((name) => isProtectedEnvName(name, 'exact'))).toEqual([]);
    expect(lower.filter((name) => !isProtectedEnvName(name, 'insensitive'))).toEqual([]);
    expect(['ldx', 'pytho'].filter((name) => isProtectedEnvName(name, 'insensitive'))).toEqual([]);
  });

  it('still skips, with a warning, a key that is not a variable name', () => {
    // Prepare / Act
    const { env, lines } = build({ 'db/url': 'postgres://x' });
    // Assess
    expect(env['db/url']).toBeUndefined();
    expect(lines).toEqual(['skipped db/url: not a valid environment variable name']);
  });
});

describe('the values of `secrets export --format shell|dotenv`', () => {
  /** What the shell and dotenv exports would carry, and the skip lines they would print. */
  function guard(values: Record<string, string>, allowed: string[] = [], nameCase: 'exact' | 'insensitive' = 'exact') {
    const lines: string[] = [];
    const kept = withoutProtected(values, { allowed, nameCase, skip: (key, why) => lines.push(`skipped ${key}: ${why}`) });
    return { kept, lines };
  }

  it('leaves out every protected name but those --allow-env names, names each one, and leaves other keys to the format', () => {
    // Prepare
    const values = { PATH: 'p', LD_PRELOAD: 'l', PS4: 'x', GIT_SSH_COMMAND: 'g', API_KEY: 'a', 'db.host': 'h', 'db/url': 'u' };
    // Act
    const { kept, lines } = guard(values, ['PS4']);
    // Assess
    expect(kept).toEqual({ PS4: 'x', API_KEY: 'a', 'db.host': 'h', 'db/url': 'u' });
    expect(lines).toEqual(
      ['PATH', 'LD_PRELOAD', 'GIT_SSH_COMMAND'].map(
        (key) => `skipped ${key}: a secret may not set it (it changes how the command starts); pass --allow-env ${key} to allow it`,
      ),
    );
  });

  it('compares names and --allow-env without case on Windows', () => {
    // Prepare / Act
    const windows = guard({ Path: 'p', ld_audit: 'l', Editor: 'e' }, ['editor'], 'insensitive');
    const posix = guard({ Path: 'p', ld_audit: 'l' });
    // Assess
    expect(windows.kept).toEqual({ Editor: 'e' });
    expect(windows.lines.map((line) => line.split(':')[0])).toEqual(['skipped Path', 'skipped ld_audit']);
    expect([posix.kept, posix.lines]).toEqual([{ Path: 'p', ld_audit: 'l' }, []]);
  });
});
