import * as z from 'zod';
import { ID_PREFIXES, type IdKind, isId } from '../ids.ts';

/** A name of a project, environment or access key: 1 to 120 characters (api.md section 8). */
export const nameSchema = z.string().min(1).max(120);

/** An id of the given kind, `<prefix>_<ULID>`. */
export const idSchema = (kind: IdKind) =>
  z
    .string()
    .max(64)
    .refine((value) => isId(kind, value), { message: `must be ${/^[aeiou]/.test(ID_PREFIXES[kind]) ? 'an' : 'a'} ${ID_PREFIXES[kind]}_ id` });

/** `limit` (1 to 200, default 50) and `cursor` of every list route. */
export const pageQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 1 to 200')
    .transform(Number)
    .pipe(z.number().int().min(1).max(200))
    .default(50),
  cursor: z.string().min(1).max(2048).optional(),
});

/** Path slugs: what the slug rule of decisions.md can produce (lower-case letters, digits, inner dashes). */
export const slugSchema = z
  .string()
  .max(80)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a slug of lower-case letters, digits and dashes');

/** A positive version number given as a query string (`?version=3`). */
export const versionQuerySchema = z
  .string()
  .regex(/^-?\d+$/, 'must be an integer above 0')
  .transform(Number)
  .pipe(z.number().int().min(1).max(2 ** 31));

/** A secret key (decisions.md): 1 to 256 of `[A-Za-z0-9_.-/]`, no leading or trailing `/`, no `//`. */
export const secretKeySchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_.\-/]*$/, 'may contain only letters, digits, "_", ".", "-" and "/"')
  .refine((key) => !key.startsWith('/') && !key.endsWith('/'), { message: 'must not start or end with "/"' })
  .refine((key) => !key.includes('//'), { message: 'must not contain "//"' });

/** The `If-Match` header of a secret write: the version the write expects (0 = the key must not exist). */
export const ifMatchSchema = z.object({
  'if-match': z
    .string()
    .transform((raw) => raw.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'))
    .pipe(z.string().regex(/^\d{1,10}$/, 'must be a version number (0 = the key must not exist yet)').transform(Number))
    .optional(),
});

/** An ISO 8601 timestamp, as epoch milliseconds. */
export const timestampSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp' })
  .transform((value) => Date.parse(value));
