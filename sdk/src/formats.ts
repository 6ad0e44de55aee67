import { stringify } from 'yaml';

/** The export formats of `secrets export --format`. */
export const FORMATS = ['dotenv', 'json', 'yaml', 'shell'] as const;
export type Format = (typeof FORMATS)[number];

/** A value that `--format dotenv` cannot carry exactly; its message names the key, never the value. */
export class UnwritableValueError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(
      `${key}: dotenv cannot carry this value exactly (a value with a ' or a line break must hold no ", $, \`, \\ or ` +
        'carriage return, and no value may end with \\); use --format json or shell',
    );
    this.name = 'UnwritableValueError';
    this.key = key;
  }
}

/**
 * A dotenv value (Hardening v1.4) that starts no other line (`docker run --env-file`), runs nothing when the file is
 * sourced (`set -a; . ./.env`) and that dotenv's parser reads back exactly: in single quotes when it holds no `'` and
 * no line break, else in double quotes with each newline written `\n` when it holds none of `"`, `$`, `` ` ``, `\`
 * and a carriage return (only there does dotenv's parser turn the escapes `\n` and `\r` into characters); never
 * backticks, which a shell runs. Anything else is refused, naming the key. Two cases that cannot read back otherwise:
 * - a carriage return counts as a line break: dotenv turns `\r` and `\r\n` into `\n` before parsing, even in quotes;
 * - a value ending in `\` is not put in single quotes (beyond the contract's letter): dotenv reads `\'` as an escaped
 *   quote, so the value would run on to the next `'` that ends a line or comes before a `#`, taking in another key's
 *   line (the test shows it).
 * U+2028, U+2029 and U+0085 are no line end in quotes for dotenv (checked: they read back) nor for a shell.
 */
function dotenvValue(key: string, value: string): string {
  if (!/['\n\r]/.test(value) && !value.endsWith('\\')) return `'${value}'`;
  if (!/["$`\\\r]/.test(value)) return `"${value.replace(/\n/g, '\\n')}"`;
  throw new UnwritableValueError(key);
}

/** A POSIX shell word in single quotes: nothing inside is expanded; a quote itself becomes '\''. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/** A name a process environment variable can have (a key like `db/url` cannot be one). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The values in `format`, keys sorted. A key `shell` or `dotenv` cannot carry (not a variable name: `db/url`, and
 * `a.b`, which dotenv's parser would read but `set -a; . ./.env` would run as a command) is left out and passed to
 * `skip`, as `run` does. A dotenv value that cannot be written exactly throws UnwritableValueError, before anything
 * is answered: so the output always reads back as it was written.
 */
export function formatValues(values: Record<string, string>, format: Format, skip: (key: string) => void = () => {}): string {
  const keys = Object.keys(values).sort();
  const sorted = Object.fromEntries(keys.map((key) => [key, values[key]!]));
  const named = (pattern: RegExp) => keys.filter((key) => pattern.test(key) || (skip(key), false));
  switch (format) {
    case 'json':
      return `${JSON.stringify(sorted, null, 2)}\n`;
    case 'yaml':
      return stringify(sorted);
    case 'shell':
      return named(ENV_NAME)
        .map((key) => `export ${key}=${shellQuote(values[key]!)}\n`)
        .join('');
    case 'dotenv':
      return named(ENV_NAME)
        .map((key) => `${key}=${dotenvValue(key, values[key]!)}\n`)
        .join('');
  }
}
