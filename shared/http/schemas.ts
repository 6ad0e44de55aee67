import * as z from 'zod';
import { ID_PREFIXES, type IdKind, isId } from '../ids.ts';

/** A name of a project, environment or access key: 1 to 120 characters (api.md section 8). */
export const nameSchema = z.string().min(1).max(120);

/** An id of the given kind, `<prefix>_<ULID>`. */
export const idSchema = (kind: IdKind) =>
  z.string().max(64).refine((value) => isId(kind, value), { message: `must be a ${ID_PREFIXES[kind]}_ id` });

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
