import * as z from 'zod/mini';
import { AUDIT_ACTIONS } from '../audit-actions.ts';
import { once } from './once.ts';

/**
 * The schemas of what the API answers, each defined once. A route names its answer's `data` schema, and the
 * answer is built through it (`z.object` keeps the named fields and drops any other), so a stored field (a hash,
 * a sealed value, a key) cannot reach a client through a forgotten view. The OpenAPI document is generated from
 * these schemas (bin/openapi.ts). Each is built on first use (`once`): a cold container builds only what its first
 * route answers.
 */

export const timestamp = once(() => z.string().check(z.iso.datetime({ offset: true })));
export const nullableTimestamp = once(() => z.nullable(timestamp()));
/** An id of this service, `<prefix>_<ULID>`: described by its prefix (answers are checked for shape, not re-validated). */
export const id = (prefix: string) => z.string().check(z.regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`)));

export const projectAnswer = once(() => z.object({ id: id('proj'), name: z.string(), slug: z.string(), createdAt: timestamp(), createdBy: z.string() }));

export const environmentAnswer = once(() => z.object({ id: id('env'), projectId: id('proj'), name: z.string(), slug: z.string(), createdAt: timestamp() }));

/** A secret as lists show it: never a value. */
export const secretListItem = once(() => z.object({ id: id('sec'), key: z.string(), currentVersion: z.int(), createdAt: timestamp(), updatedAt: timestamp() }));

/** A search result: the list item and where the secret lives. */
export const secretSearchItem = once(() => z.extend(secretListItem(), {
  projectId: id('proj'),
  projectSlug: z.string(),
  environmentId: id('env'),
  envSlug: z.string(),
  path: z.string(),
}));

/** What a write (PUT, rollback) answers: the version it made. */
export const secretWriteResult = once(() => z.object({ id: id('sec'), key: z.string(), version: z.int() }));

/** One version in a secret's history: who wrote it when, and what it restored. Never a value. */
export const versionAnswer = once(() => z.object({ version: z.int(), createdAt: timestamp(), createdBy: z.string(), rolledBackFrom: z.nullable(z.int()) }));

/** A revealed value. */
export const revealResult = once(() => z.object({ key: z.string(), version: z.int(), value: z.string() }));

/** One secret of a loaded environment: its current version and value. */
export const environmentValueAnswer = once(() => z.object({ id: id('sec'), key: z.string(), version: z.int(), value: z.string() }));

/** A reveal by path also names the secret. */
export const revealByPathResult = once(() => z.extend(revealResult(), { id: id('sec') }));

/** What a delete answers. */
/** A deleted secret in its environment's list: restorable until `purgeAt`. Never a value. */
export const deletedSecretAnswer = once(() => z.object({
  id: id('sec'),
  key: z.string(),
  currentVersion: z.int(),
  deletedAt: timestamp(),
  deletedBy: z.string(),
  purgeAt: timestamp(),
}));

export const deletedResult = (prefix: string) => z.object({ id: id(prefix), deleted: z.literal(true) });

export const auditEntryAnswer = once(() => z.object({
  id: id('aud'),
  action: z.enum(AUDIT_ACTIONS),
  actorSub: z.string(),
  target: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: timestamp(),
}));

export const webhookEndpointAnswer = once(() => z.object({
  id: id('we'),
  url: z.string(),
  events: z.array(z.string()),
  description: z.nullable(z.string()),
  enabled: z.boolean(),
  secretHint: z.string(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  disabledAt: nullableTimestamp(),
  disabledReason: z.nullable(z.string()),
  consecutiveFailures: z.int(),
  failingSince: nullableTimestamp(),
  // When the signing secret a rotation replaced stops signing (it signs beside the new one until then); null when
  // there is none, or it has expired.
  previousSecretExpiresAt: nullableTimestamp(),
}));

/** The registration (and rotation) answer: the endpoint and its signing secret, shown this once. */
export const webhookEndpointCreated = once(() => z.extend(webhookEndpointAnswer(), { secret: z.string() }));

export const eventTypeAnswer = once(() => z.object({ type: z.string(), description: z.string() }));

const attemptAnswer = once(() => z.object({
  attempt: z.int(),
  at: timestamp(),
  statusCode: z.nullable(z.int()),
  durationMs: z.number(),
  error: z.nullable(z.string()),
}));

export const deliveryAnswer = once(() => z.object({
  id: id('whd'),
  endpointId: id('we'),
  eventId: id('evt'),
  eventType: z.string(),
  status: z.enum(['pending', 'success', 'failed']),
  attempts: z.int(),
  statusCode: z.nullable(z.int()),
  lastError: z.nullable(z.string()),
  nextRetryAt: nullableTimestamp(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  attemptLog: z.array(attemptAnswer()),
}));

/**
 * An endpoint's delivery statistics: deliveries created since `since` (the start of an hour) by their status now,
 * the share of finished ones that succeeded, and their attempts' durations.
 */
export const webhookStatsAnswer = once(() => z.object({
  since: timestamp(),
  deliveries: z.int(),
  succeeded: z.int(),
  failed: z.int(),
  pending: z.int(),
  successRate: z.nullable(z.number().check(z.gte(0), z.lte(1))),
  p50DurationMs: z.nullable(z.int()),
  p95DurationMs: z.nullable(z.int()),
  lastSuccessAt: nullableTimestamp(),
  lastFailureAt: nullableTimestamp(),
}));

/** `meta.page` of every list answer. */
export const pageMeta = once(() => z.object({ limit: z.int(), nextCursor: z.nullable(z.string()), hasMore: z.boolean() }));
