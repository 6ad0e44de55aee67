import { stringify } from 'yaml';

/** The export formats of `secrets export --format`. */
export const FORMATS = ['dotenv', 'json', 'yaml', 'shell'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * A dotenv value quoted so that dotenv's parser reads it back exactly, new lines included: single quotes are
 * literal, then backticks; double quotes only when nothing in the value would be expanded in them. A value that
 * holds all three quote kinds and an escape-like sequence cannot be written exactly: it is refused, naming the key.
 */
export function dotenvValue(key: string, value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('`')) return `\`${value}\``;
  if (!value.includes('"') && !/\\[nr]/.test(value)) return `"${value}"`;
  throw new Error(`${key}: this value cannot be written exactly as dotenv (it holds ', \` and "); use --format json`);
}

/** A POSIX shell word in single quotes: nothing inside is expanded; a quote itself becomes '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/** The values in `format`, keys sorted. */
export function formatValues(values: Record<string, string>, format: Format): string {
  const keys = Object.keys(values).sort();
  const sorted = Object.fromEntries(keys.map((key) => [key, values[key]!]));
  switch (format) {
    case 'json':
      return `${JSON.stringify(sorted, null, 2)}\n`;
    case 'yaml':
      return stringify(sorted);
    case 'shell':
      return keys.map((key) => `export ${key}=${shellQuote(values[key]!)}\n`).join('');
    case 'dotenv':
      return keys.map((key) => `${key}=${dotenvValue(key, values[key]!)}\n`).join('');
  }
}

/** A name a process environment variable can have (a key like `db/url` cannot be one). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
