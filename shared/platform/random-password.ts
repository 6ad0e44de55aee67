import { randomInt } from 'node:crypto';
import { ValidationError } from './errors.ts';

/**
 * Random passwords as AWS's GetRandomPassword makes them: `length` characters from the classes not excluded (upper
 * case, lower case, digits, AWS's punctuation, and a space when asked), `excludeCharacters` taken out, and by default
 * at least one of each class left. From the operating system's CSPRNG, each character drawn without bias
 * (crypto.randomInt). The AWS API's GetRandomPassword and rotation without a function both use it.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

export interface PasswordRules {
  length?: number | undefined;
  excludeCharacters?: string | undefined;
  excludeNumbers?: boolean | undefined;
  excludePunctuation?: boolean | undefined;
  excludeUppercase?: boolean | undefined;
  excludeLowercase?: boolean | undefined;
  includeSpace?: boolean | undefined;
  requireEachIncludedType?: boolean | undefined;
}

/** The classes of characters the rules leave, each without the excluded characters; refuses rules that leave none. */
export function passwordClasses(rules: PasswordRules): string[] {
  const excluded = new Set(rules.excludeCharacters ?? '');
  const classes = [
    rules.excludeUppercase ? '' : UPPER,
    rules.excludeLowercase ? '' : LOWER,
    rules.excludeNumbers ? '' : DIGITS,
    rules.excludePunctuation ? '' : PUNCTUATION,
    rules.includeSpace ? ' ' : '',
  ]
    .map((chars) => [...chars].filter((char) => !excluded.has(char)).join(''))
    .filter((chars) => chars.length > 0);
  if (classes.length === 0) throw new ValidationError('The password must be able to contain at least one character.');
  const length = rules.length ?? 32;
  if ((rules.requireEachIncludedType ?? true) && classes.length > length)
    throw new ValidationError(`length: must be at least ${classes.length} to include each included type.`);
  return classes;
}

export function randomPassword(rules: PasswordRules): string {
  const length = rules.length ?? 32;
  const classes = passwordClasses(rules);
  const all = classes.join('');
  const chars = Array.from({ length }, () => all[randomInt(all.length)]!);
  if (rules.requireEachIncludedType ?? true) {
    // One of each class at distinct random places (a Fisher-Yates draw of positions), so no class is missing.
    const positions = Array.from({ length }, (_, i) => i);
    classes.forEach((chosen, i) => {
      const j = i + randomInt(length - i);
      [positions[i], positions[j]] = [positions[j]!, positions[i]!];
      chars[positions[i]!] = chosen[randomInt(chosen.length)]!;
    });
  }
  avoidReferenceOpeners(chars, classes);
  return chars.join('');
}

/**
 * `${` opens a secret reference (decisions.md v1.4): a password holding one would be refused when a rotation writes
 * it, or resolved when it is revealed. Each `{` right after a `$` is drawn again from its own class without `{` (so
 * every class drawn stays present), left to right, so a `$` drawn in its place is checked against what follows it.
 */
function avoidReferenceOpeners(chars: string[], classes: readonly string[]): void {
  const others = classes.find((chosen) => chosen.includes('{'))?.replaceAll('{', '') ?? '';
  // Without another character in `{`'s class there is no `$` either (both are punctuation): nothing to avoid.
  if (others.length === 0) return;
  for (let i = 1; i < chars.length; i++) if (chars[i - 1] === '$' && chars[i] === '{') chars[i] = others[randomInt(others.length)]!;
}
