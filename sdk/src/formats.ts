import { stringify } from 'yaml';

/** The export formats of `secrets export --format`. */
export const FORMATS = ['dotenv', 'json', 'yaml', 'shell'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * A dotenv value quoted so that dotenv's parser reads it back exactly, new lines included: single quotes are
 * literal, then backticks; double quotes only when nothing in the value would be expanded in them. A value that
 * holds all three quote kinds and an escape-like sequence cannot be written exactly: it is refused, naming the key.
 */
function dotenvValue(key: string, value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('`')) return `\`${value}\``;
  if (!value.includes('"') && !/\\[nr]/.test(value)) return `"${value}"`;
  throw new Error(`${key}: this value cannot be written exactly as dotenv (it holds ', \` and "); use --format json`);
}

/** A POSIX shell word in single quotes: nothing inside is expanded; a quote itself becomes '\''. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/** A name a process environment variable can have (a key like `db/url` cannot be one). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name dotenv's parser reads back (its key pattern, `[\w.-]+`). */
const DOTENV_NAME = /^[\w.-]+$/;

/**
 * The values in `format`, keys sorted. A key the format cannot carry (not a variable name for `shell`, a `/` for
 * `dotenv`) is left out and passed to `skip`, as `run` does, so the output always reads back as it was written.
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
      return named(DOTENV_NAME)
        .map((key) => `${key}=${dotenvValue(key, values[key]!)}\n`)
        .join('');
  }
}
