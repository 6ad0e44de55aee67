import * as z from 'zod/mini';
import { $constructor, $ZodCheckMaxLength, $ZodCheckMinLength } from 'zod/v4/core';
import { ID_PREFIXES, type IdKind, isId } from '../ids.ts';
import { once } from './once.ts';

// zod/mini: the same validation core as zod, a quarter of the bundle (every Lambda carries it). Each schema is built
// on first use (`once`), when the first route that needs it is declared, not at cold start.

// zod counts a string's length in code points; decisions.md counts UTF-16 code units (JavaScript's `length`), so an
// astral character (an emoji) is two. These two checks count units and keep zod's kinds (`max_length`,
// `min_length`): an issue reads as zod's would, and the OpenAPI document still carries maxLength and minLength.
// Every string length limit of the API goes through them; zod's own length checks are for arrays.
const $MaxUnits = $constructor<$ZodCheckMaxLength<string>>('$MaxUnits', (inst, def) => {
  $ZodCheckMaxLength.init(inst, def);
  inst._zod.check = (payload) => {
    if (payload.value.length <= def.maximum) return;
    payload.issues.push({
      origin: 'string',
      code: 'too_big',
      maximum: def.maximum,
      inclusive: true,
      input: payload.value,
      inst,
      continue: !def.abort,
    });
  };
});
const $MinUnits = $constructor<$ZodCheckMinLength<string>>('$MinUnits', (inst, def) => {
  $ZodCheckMinLength.init(inst, def);
  inst._zod.check = (payload) => {
    if (payload.value.length >= def.minimum) return;
    payload.issues.push({
      origin: 'string',
      code: 'too_small',
      minimum: def.minimum,
      inclusive: true,
      input: payload.value,
      inst,
      continue: !def.abort,
    });
  };
});

/** At most `maximum` UTF-16 code units (decisions.md), not zod's code points. */
export const maxUnits = (maximum: number) => new $MaxUnits({ check: 'max_length', maximum });

/** At least `minimum` UTF-16 code units (decisions.md), not zod's code points. */
export const minUnits = (minimum: number) => new $MinUnits({ check: 'min_length', minimum });

/** A name of a project, environment or access key: 1 to 120 characters (api.md section 8). */
export const nameSchema = once(() => z.string().check(minUnits(1), maxUnits(120)));

/** An id of the given kind, `<prefix>_<ULID>`. */
export const idSchema = (kind: IdKind) =>
  z.string().check(
    maxUnits(64),
    z.refine((value) => isId(kind, value), {
      error: `must be ${/^[aeiou]/.test(ID_PREFIXES[kind]) ? 'an' : 'a'} ${ID_PREFIXES[kind]}_ id`,
    }),
  );

/** A whole number written as a query string, within bounds. */
const integerQuery = (min: number, max: number, rule: string) =>
  z.pipe(z.pipe(z.string().check(z.regex(/^-?\d{1,10}$/, rule)), z.transform(Number)), z.int().check(z.minimum(min), z.maximum(max)));

/** `limit` (1 to `max`, default `fallback`) and `cursor` of a list route. */
export const pageQueryOf = (max: number, fallback: number) =>
  z.strictObject({
    limit: z._default(integerQuery(1, max, `must be an integer from 1 to ${max}`), fallback),
    cursor: z.optional(z.string().check(minUnits(1), maxUnits(2048))),
  });

/** `limit` (1 to 200, default 50) and `cursor` of every list route. */
export const pageQuerySchema = once(() => pageQueryOf(200, 50));

/** Path slugs: what the slug rule of decisions.md can produce (lower-case letters, digits, inner dashes). */
export const slugSchema = once(() =>
  z.string().check(maxUnits(80), z.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a slug of lower-case letters, digits and dashes')),
);

/** A positive version number given as a query string (`?version=3`). */
export const versionQuerySchema = once(() => integerQuery(1, 2 ** 31, 'must be an integer above 0'));

/** `recoveryWindowDays` of a delete: 0 (purge at once) or 7 to 30 days (decisions.md, "Recoverable deletes"). */
export const recoveryWindowQuerySchema = once(() =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d{1,2}$/, 'must be 0 or an integer from 7 to 30')), z.transform(Number)),
    z.int().check(z.refine((days) => days === 0 || (days >= 7 && days <= 30), { error: 'must be 0 or an integer from 7 to 30' })),
  ),
);

/** A version in a JSON body: an integer above 0. */
export const versionSchema = once(() => z.int().check(z.minimum(1), z.maximum(2 ** 31)));

/** A secret key (decisions.md): 1 to 256 of `[A-Za-z0-9_.-/]`, no leading or trailing `/`, no `//`. */
export const secretKeySchema = once(() =>
  z.string().check(
    minUnits(1),
    maxUnits(256),
    z.regex(/^[A-Za-z0-9_.\-/]*$/, 'may contain only letters, digits, "_", ".", "-" and "/"'),
    z.refine((key) => !key.startsWith('/') && !key.endsWith('/'), { error: 'must not start or end with "/"' }),
    z.refine((key) => !key.includes('//'), { error: 'must not contain "//"' }),
  ),
);

/** The `If-Match` header of a secret write: the version the write expects (0 = the key must not exist). */
export const ifMatchSchema = once(() =>
  z.object({
    'if-match': z.optional(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((raw) =>
            raw
              .trim()
              .replace(/^W\//, '')
              .replace(/^"(.*)"$/, '$1'),
          ),
        ),
        z.pipe(z.string().check(z.regex(/^\d{1,10}$/, 'must be a version number (0 = the key must not exist yet)')), z.transform(Number)),
      ),
    ),
  }),
);

/** An ISO 8601 timestamp, as epoch milliseconds. */
export const timestampSchema = once(() =>
  z.pipe(
    z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }),
    z.transform((value) => Date.parse(value)),
  ),
);
