import * as z from 'zod/mini';
import { once } from './once.ts';

/**
 * The shared parts of what the API answers (timestamps, ids, page metadata); each feature defines its own answers
 * with them (`*-answers.ts`), each once. A route names its answer's `data` schema, and the
 * answer is built through it (`z.object` keeps the named fields and drops any other), so a stored field (a hash,
 * a sealed value, a key) cannot reach a client through a forgotten view. The OpenAPI document is generated from
 * these schemas (bin/openapi.ts). Each is built on first use (`once`): a cold container builds only what its first
 * route answers.
 */

export const timestamp = once(() => z.string().check(z.iso.datetime({ offset: true })));

export const nullableTimestamp = once(() => z.nullable(timestamp()));

/** An id of this service, `<prefix>_<ULID>`: described by its prefix (answers are checked for shape, not re-validated). */
export const id = (prefix: string) => z.string().check(z.regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`)));

export const deletedResult = (prefix: string) => z.object({ id: id(prefix), deleted: z.literal(true) });

/** `meta.page` of every list answer. */
export const pageMeta = once(() => z.object({ limit: z.int(), nextCursor: z.nullable(z.string()), hasMore: z.boolean() }));
