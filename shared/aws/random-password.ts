import * as z from 'zod/mini';
import { randomPassword } from '../platform/random-password.ts';
import { AwsError } from './aws-errors.ts';
import { defineOperation } from './aws-handler.ts';

/**
 * GetRandomPassword as AWS documents it (shared/platform/random-password.ts makes it): `PasswordLength` 1 to 4096
 * (default 32). Needs only a valid credential. Never holds `${` (a rotation function writes the password as AWSPENDING,
 * where it would open a secret reference).
 */

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

export const getRandomPassword = defineOperation({
  input,
  handle: async (_principal, options) => {
    try {
      const password = randomPassword({
        length: options.PasswordLength,
        excludeCharacters: options.ExcludeCharacters,
        excludeNumbers: options.ExcludeNumbers,
        excludePunctuation: options.ExcludePunctuation,
        excludeUppercase: options.ExcludeUppercase,
        excludeLowercase: options.ExcludeLowercase,
        includeSpace: options.IncludeSpace,
        requireEachIncludedType: options.RequireEachIncludedType,
      });
      return { RandomPassword: password };
    } catch (error) {
      // The rules' messages name the service's fields; AWS's clients know PasswordLength.
      const message = (error as Error).message.replace(/^length:/, 'PasswordLength:');
      throw new AwsError('InvalidParameterException', message);
    }
  },
});
