import { randomInt } from 'node:crypto';
import * as z from 'zod/mini';
import { AwsError } from './aws-errors.ts';
import { defineOperation } from './aws-handler.ts';

/**
 * GetRandomPassword as AWS documents it: `PasswordLength` 1 to 4096 (default 32), characters from the classes not
 * excluded (upper case, lower case, digits, AWS's punctuation, and a space when asked), `ExcludeCharacters` taken
 * out, and by default at least one of each class left (`RequireEachIncludedType`). From the operating system's
 * CSPRNG, each character drawn without bias (crypto.randomInt). Needs only a valid credential.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

const input = z.object({
  PasswordLength: z.optional(z.int().check(z.minimum(1), z.maximum(4096))),
  ExcludeCharacters: z.optional(z.string().check(z.maxLength(4096))),
  ExcludeNumbers: z.optional(z.boolean()),
  ExcludePunctuation: z.optional(z.boolean()),
  ExcludeUppercase: z.optional(z.boolean()),
  ExcludeLowercase: z.optional(z.boolean()),
  IncludeSpace: z.optional(z.boolean()),
  RequireEachIncludedType: z.optional(z.boolean()),
});

export function randomPassword(options: z.infer<typeof input>): string {
  const length = options.PasswordLength ?? 32;
  const excluded = new Set(options.ExcludeCharacters ?? '');
  const classes = [
    options.ExcludeUppercase ? '' : UPPER,
    options.ExcludeLowercase ? '' : LOWER,
    options.ExcludeNumbers ? '' : DIGITS,
    options.ExcludePunctuation ? '' : PUNCTUATION,
    options.IncludeSpace ? ' ' : '',
  ]
    .map((chars) => [...chars].filter((char) => !excluded.has(char)).join(''))
    .filter((chars) => chars.length > 0);
  if (classes.length === 0) throw new AwsError('InvalidParameterException', 'The password must be able to contain at least one character.');
  const requireEach = options.RequireEachIncludedType ?? true;
  if (requireEach && classes.length > length) {
    throw new AwsError('InvalidParameterException', `PasswordLength: must be at least ${classes.length} to include each included type.`);
  }
  const all = classes.join('');
  const chars = Array.from({ length }, () => all[randomInt(all.length)]!);
  if (requireEach) {
    // One of each class at distinct random places (a Fisher-Yates draw of positions), so no class is missing.
    const positions = Array.from({ length }, (_, i) => i);
    classes.forEach((chosen, i) => {
      const j = i + randomInt(length - i);
      [positions[i], positions[j]] = [positions[j]!, positions[i]!];
      chars[positions[i]!] = chosen[randomInt(chosen.length)]!;
    });
  }
  return chars.join('');
}

export const getRandomPassword = defineOperation({
  input,
  handle: async (_principal, options) => ({ RandomPassword: randomPassword(options) }),
});
