import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatValues, UnwritableValueError } from '../../../sdk/src/formats.ts';
import { ownVariables, SHELLS, sourceEnvFile } from './source-env.ts';

/**
 * The contract's rule (Hardening v1.4), written here on its own: single quotes for a value with no `'` and no line
 * break (a carriage return is one), double quotes for one with none of `"`, `$`, `` ` ``, `\` and a carriage return;
 * and, beyond its letter, no single quotes for a value ending with `\` (dotenv reads `\'` as an escaped quote).
 */
function contractRefuses(value: string): boolean {
  const single = !value.includes("'") && !value.includes('\n') && !value.includes('\r') && !value.endsWith('\\');
  const double = !['"', '$', '`', '\\', '\r'].some((char) => value.includes(char));
  return !single && !double;
}

/** `formatValues(values, 'dotenv')`, or the refusal it threw; a skipped key fails the test (all keys are names). */
function dotenv(values: Record<string, string>): { text?: string; refused?: UnwritableValueError } {
  try {
    return {
      text: formatValues(values, 'dotenv', (key) => {
        throw new Error(`skipped ${key}`);
      }),
    };
  } catch (error) {
    if (error instanceof UnwritableValueError) return { refused: error };
    throw error;
  }
}

describe('secrets export --format dotenv (Hardening v1.4)', () => {
  let folder: string;
  let sentinel: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'secrets-dotenv-'));
    sentinel = join(folder, 'PWNED');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps a value with a new line on its own line: `--env-file` and dotenv read no second variable', () => {
    // Prepare
    const values = { APP_ENV: 'prod\nLD_PRELOAD=/tmp/x.so' };
    // Act
    const { text } = dotenv(values);
    // Assess
    expect(text).toBe('APP_ENV="prod\\nLD_PRELOAD=/tmp/x.so"\n');
    expect(parseDotenv(text!)).toEqual(values);
    for (const shell of SHELLS) expect([...sourceEnvFile(shell, folder, text!).env.keys()]).not.toContain('LD_PRELOAD');
  });

  it("never writes backticks: a value holding ' runs nothing when the file is sourced", () => {
    // Prepare
    const values = { TOKEN: `a'b';touch ${sentinel}` };
    // Act
    const { text } = dotenv(values);
    // Assess
    expect(text).not.toContain('`');
    expect(parseDotenv(text!)).toEqual(values);
    for (const shell of SHELLS) {
      const sourced = sourceEnvFile(shell, folder, text!);
      expect(sourced.env.get('TOKEN'), shell).toBe(values.TOKEN);
      expect(existsSync(sentinel), shell).toBe(false);
    }
  });

  it.each([
    ['a quote with $( )', `it's $(touch PWNED)`],
    ['a new line with a backtick', 'line\n`touch PWNED`'],
    ['a quote with a double quote', `'"`],
    ['a new line with a backslash', 'a\\nb\nc'],
    ['a carriage return', 'a\rb'],
    ['a carriage return and a new line', 'a\r\nb'],
    ['a trailing backslash', 'C:\\temp\\'],
  ])('refuses %s, naming the key and never the value', (_, value) => {
    // Prepare
    const values = { FINE: 'ok', REFUSED_KEY: value };
    // Act
    const { text, refused } = dotenv(values);
    // Assess
    expect(text).toBeUndefined();
    expect(refused?.key).toBe('REFUSED_KEY');
    expect(refused?.message).toMatch(/^REFUSED_KEY: .*use --format json or shell$/);
    expect(refused?.message).not.toContain(value);
  });

  it('a value ending with \\ would swallow the next lines in single quotes, hence its refusal', () => {
    // Prepare: what single quotes would give, and what dotenv reads of it
    const written = "A='a\\'\nB=\"x' # y\"\nC='c'\n";
    // Act
    const read = parseDotenv(written);
    // Assess: A runs on into B's line and B is lost (the case dotenvValue refuses)
    expect(read).toEqual({ A: 'a\\\'\nB="x', C: 'c' });
  });

  it('leaves out, naming them, keys that are not shell variable names (a.b, a-b, db/url)', () => {
    // Prepare
    const values = { 'a.b': '1', 'a-b': '2', 'db/url': '3', '1ST': '4', GOOD_1: '5' };
    const skipped: string[] = [];
    // Act
    const text = formatValues(values, 'dotenv', (key) => skipped.push(key));
    // Assess
    expect(text).toBe("GOOD_1='5'\n");
    expect(skipped.toSorted()).toEqual(['1ST', 'a-b', 'a.b', 'db/url']);
  });

  it("shell keeps single quotes with a quote as '\\''", () => {
    // Prepare / Act
    const text = formatValues({ A: "it's $HOME\n`x`" }, 'shell');
    // Assess
    expect(text).toBe("export A='it'\\''s $HOME\n`x`'\n");
  });

  // About 200 shells in all (one bash and one sh per generated file): a few seconds.
  it('writes every value the contract allows so that dotenv reads it back and a shell runs nothing and sets only those keys', {
    timeout: 30_000,
  }, () => {
    // Prepare: values built of what quotes, expands or ends lines somewhere, and of any other code point but NUL
    const payloads = [`$(touch ${sentinel})`, `\`touch ${sentinel}\``, `';touch ${sentinel};'`, `";touch ${sentinel};"`];
    const pieces = fc.constantFrom(
      ...payloads,
      ...["'", '"', '`', '$', '${X}', '\\', '\\n', '\\r', '\n', '\r', '\r\n', '#', ' #', '=', ' ', '\t'],
      ...['\u2028', '\u2029', '\u0085', '\u000b', '\u000c', '\ufeff', '\u00a0'],
    );
    const other = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((char) => char !== '\0');
    const value = fc.string({ unit: fc.oneof({ arbitrary: pieces, weight: 1 }, { arbitrary: other, weight: 3 }), maxLength: 8 });
    const name = fc.stringMatching(/^[A-Za-z0-9_]{0,6}$/).map((tail) => `S_${tail}`);
    const own = Object.fromEntries(SHELLS.map((shell) => [shell, ownVariables(shell, folder)]));
    // Act / Assess
    fc.assert(
      fc.property(fc.dictionary(name, value, { minKeys: 1, maxKeys: 12 }), (values) => {
        const allowed = Object.fromEntries(Object.entries(values).filter(([, v]) => !contractRefuses(v)));
        const refusedKeys = Object.keys(values).filter((key) => !(key in allowed));
        // A dictionary with a refused value is refused whole, naming one of the keys the contract refuses.
        const whole = dotenv(values);
        if (refusedKeys.length > 0) expect(refusedKeys).toContain(whole.refused?.key);
        else expect(whole.refused).toBeUndefined();
        // The rest is written, one line a key, and read back exactly.
        const { text, refused } = dotenv(allowed);
        expect(refused).toBeUndefined();
        const keys = Object.keys(allowed).sort();
        expect(text!.split('\n')).toHaveLength(keys.length + 1);
        expect(text).not.toContain('\r');
        expect(parseDotenv(text!)).toEqual(allowed);
        expect(parseDotenv(text!, { fast: true })).toEqual(allowed);
        for (const shell of SHELLS) {
          const sourced = sourceEnvFile(shell, folder, text!);
          expect([sourced.status, sourced.stderr], shell).toEqual([0, '']);
          expect(existsSync(sentinel), shell).toBe(false);
          expect([...sourced.env.keys()].toSorted(), shell).toEqual([...own[shell]!, ...keys].toSorted());
        }
      }),
      { numRuns: 100 },
    );
  });
});
