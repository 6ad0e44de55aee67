import { ENV_NAME } from './formats.js';

/**
 * Variables that decide what runs before (or instead of) the command's own code: the program search path, the
 * dynamic loader's preloads and library paths, and the start-up hooks of shells, Node, Python, Perl, Ruby and Java.
 * A secret must not set them silently: whoever can write a secret could otherwise run code on every machine that
 * runs `secrets run`. `DYLD_*` (macOS's loader) is a family, matched as a prefix.
 */
const PROTECTED_NAMES = new Set([
  'PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'BASH_ENV', 'ENV',
  'PYTHONPATH', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS',
]);
const PROTECTED_PREFIX = 'DYLD_';

/** Why a key like `db/url` is left out of `run` and of the dotenv and shell exports. */
export const NOT_A_NAME = 'not a valid environment variable name';

/**
 * How names compare: exactly on POSIX, where `path` and `PATH` are two variables (and only `PATH` is searched);
 * without case on Windows, where `Path` is PATH.
 */
export type NameCase = 'exact' | 'insensitive';

/** The comparison this platform's environment uses. */
export function platformNameCase(platform: NodeJS.Platform = process.platform): NameCase {
  return platform === 'win32' ? 'insensitive' : 'exact';
}

/** Whether a secret named `name` would change how the command starts (a name `--allow-env` must name to be set). */
export function isProtectedEnvName(name: string, nameCase: NameCase = 'exact'): boolean {
  const compared = nameCase === 'insensitive' ? name.toUpperCase() : name;
  return PROTECTED_NAMES.has(compared) || compared.startsWith(PROTECTED_PREFIX);
}

export interface ChildEnvOptions {
  /** The names `--allow-env` lets a secret set even though they are protected. */
  allowed: readonly string[];
  /** Called for each secret left out, with its key and why (never its value). */
  skip: (key: string, why: string) => void;
  nameCase?: NameCase;
}

/**
 * The command's environment for `secrets run`: the parent's own, with every secret set over it except a key that
 * is not a variable name, and a protected name (PATH, NODE_OPTIONS, LD_PRELOAD, DYLD_*, …) that `allowed` does not
 * name. For a protected name left out, the command keeps the parent's own value: only the secret's override is
 * dropped.
 */
export function childEnvironment(values: Record<string, string>, parent: NodeJS.ProcessEnv, options: ChildEnvOptions): NodeJS.ProcessEnv {
  const nameCase = options.nameCase ?? 'exact';
  const fold = (name: string) => (nameCase === 'insensitive' ? name.toUpperCase() : name);
  const allowed = new Set(options.allowed.map(fold));
  const env = { ...parent };
  for (const [key, value] of Object.entries(values)) {
    if (!ENV_NAME.test(key)) options.skip(key, NOT_A_NAME);
    else if (isProtectedEnvName(key, nameCase) && !allowed.has(fold(key))) options.skip(key, `a secret may not set it (it changes how the command starts); pass --allow-env ${key} to allow it`);
    else env[key] = value;
  }
  return env;
}
