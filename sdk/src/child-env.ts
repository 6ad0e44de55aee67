import { ENV_NAME } from './formats.js';

/**
 * The variables a secret may not set unless `--allow-env` names them, for `secrets run` and for
 * `secrets export --format shell|dotenv`: the one list of both. A name ending in `*` is a family, matched as a prefix
 * (`LD_*` is `LD_AUDIT`, not `LDX`); every other name is matched whole. Each decides what runs before (or instead of)
 * a program's own code, so whoever can write a secret could otherwise run code on every machine that loads it.
 * Exports are guarded too: `eval "$(secrets export --format shell)"` would hand the user's own shell, and every
 * command it starts afterwards, a secret's PATH and LD_PRELOAD; a dotenv file ends up in a process environment the
 * same way (`docker run --env-file`, dotenv loaders, systemd's `EnvironmentFile`). json and yaml are data: no guard.
 * The names of v1.2 (NODE_OPTIONS, LD_PRELOAD, BASH_ENV, PYTHONPATH, PERL5OPT, RUBYOPT, JAVA_TOOL_OPTIONS, …) are in
 * their families.
 */
export const PROTECTED_ENV: readonly string[] = [
  // The program search path: a bare `make` or `node` could be anything.
  'PATH',
  // The dynamic loaders: glibc's LD_PRELOAD, LD_LIBRARY_PATH and LD_AUDIT (an audit library loaded into every process
  // before its own code), macOS's DYLD_INSERT_LIBRARIES and friends, and glibc's iconv modules (GCONV_PATH).
  'LD_*',
  'DYLD_*',
  'GCONV_PATH',
  // Shells: sh sources $ENV and bash $BASH_ENV before a script; bash takes its `set -o` and `shopt` options from
  // SHELLOPTS and BASHOPTS, and SHELLOPTS=xtrace with PS4='$(…)' makes it run that command on every line it traces;
  // PROMPT_COMMAND runs before each prompt; IFS re-splits every unquoted expansion; BASH_* holds BASH_XTRACEFD too.
  'ENV',
  'BASH_*',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  // Interpreters' start-up hooks: NODE_OPTIONS (--require, --import), NODE_PATH, NODE_EXTRA_CA_CERTS (whom TLS
  // trusts); PYTHONPATH, PYTHONSTARTUP, and PYTHONWARNINGS, whose filter imports the module its category names at
  // start: one that opens a web browser runs $BROWSER, so the two together run any command as Python starts;
  // PERL5OPT, PERL5LIB; RUBYOPT, RUBYLIB.
  'NODE_*',
  'PYTHON*',
  'PERL*',
  'RUBY*',
  // The JVM reads extra options, -javaagent: included, from JAVA_TOOL_OPTIONS, _JAVA_OPTIONS and JDK_JAVA_OPTIONS.
  'JAVA_*',
  '_JAVA_*',
  'JDK_*',
  // Git runs GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_ASKPASS, GIT_PAGER and the commands of GIT_CONFIG_*.
  'GIT_*',
  // Commands other programs run on the user's behalf: browsers (Python's webbrowser), editors (git, crontab), pagers.
  'BROWSER',
  'EDITOR',
  'VISUAL',
  'PAGER',
];

const PROTECTED_NAMES = new Set(PROTECTED_ENV.filter((name) => !name.endsWith('*')));
const PROTECTED_PREFIXES = PROTECTED_ENV.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));

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

/** Whether a secret named `name` would change how a program starts (a name `--allow-env` must name to be set). */
export function isProtectedEnvName(name: string, nameCase: NameCase = 'exact'): boolean {
  const compared = nameCase === 'insensitive' ? name.toUpperCase() : name;
  return PROTECTED_NAMES.has(compared) || PROTECTED_PREFIXES.some((prefix) => compared.startsWith(prefix));
}

export interface ChildEnvOptions {
  /** The names `--allow-env` lets a secret set even though they are protected. */
  allowed: readonly string[];
  /** Called for each secret left out, with its key and why (never its value). */
  skip: (key: string, why: string) => void;
  nameCase?: NameCase;
}

/** The `--allow-env` check: whether a secret named `key` may be set; a protected key not allowed goes to `skip`. */
function envGuard(options: ChildEnvOptions): (key: string) => boolean {
  const nameCase = options.nameCase ?? 'exact';
  const fold = (name: string) => (nameCase === 'insensitive' ? name.toUpperCase() : name);
  const allowed = new Set(options.allowed.map(fold));
  return (key) => {
    if (!isProtectedEnvName(key, nameCase) || allowed.has(fold(key))) return true;
    options.skip(key, `a secret may not set it (it changes how the command starts); pass --allow-env ${key} to allow it`);
    return false;
  };
}

/**
 * The values `secrets export --format shell|dotenv` may write: every one but a protected name (PATH, LD_*, PS4, …)
 * that `allowed` does not name. Keys that are not variable names are left to the format, which knows what it carries.
 */
export function withoutProtected(values: Record<string, string>, options: ChildEnvOptions): Record<string, string> {
  const admitted = envGuard(options);
  return Object.fromEntries(Object.entries(values).filter(([key]) => admitted(key)));
}

/**
 * The command's environment for `secrets run`: the parent's own, with every secret set over it except a key that
 * is not a variable name, and a protected name (PATH, NODE_OPTIONS, LD_PRELOAD, DYLD_*, …) that `allowed` does not
 * name. For a protected name left out, the command keeps the parent's own value: only the secret's override is
 * dropped.
 */
export function childEnvironment(values: Record<string, string>, parent: NodeJS.ProcessEnv, options: ChildEnvOptions): NodeJS.ProcessEnv {
  const admitted = envGuard(options);
  const env = { ...parent };
  for (const [key, value] of Object.entries(values)) {
    if (!ENV_NAME.test(key)) options.skip(key, NOT_A_NAME);
    else if (admitted(key)) env[key] = value;
  }
  return env;
}
