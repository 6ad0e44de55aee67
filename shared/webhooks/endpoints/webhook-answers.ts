import * as z from 'zod/mini';
import { id, nullableTimestamp, timestamp } from '../../platform/http/answer-schemas.ts';
import { once } from '../../platform/http/once.ts';

/**
 * What the API answers about webhook endpoints, event types, deliveries and their statistics: each schema defined once and built on first use; the answer is built through it,
 * so a stored field not named here cannot reach a client (shared/platform/http/answer-schemas.ts says more).
 */

export const webhookEndpointAnswer = once(() =>
  z.object({
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
  }),
);

/** The registration (and rotation) answer: the endpoint and its signing secret, shown this once. */
export const webhookEndpointCreated = once(() => z.extend(webhookEndpointAnswer(), { secret: z.string() }));

export const eventTypeAnswer = once(() => z.object({ type: z.string(), description: z.string() }));

const attemptAnswer = once(() =>
  z.object({
    attempt: z.int(),
    at: timestamp(),
    statusCode: z.nullable(z.int()),
    durationMs: z.number(),
    error: z.nullable(z.string()),
  }),
);

export const deliveryAnswer = once(() =>
  z.object({
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
  }),
);

/**
 * An endpoint's delivery statistics: deliveries created since `since` (the start of an hour) by their status now,
 * the share of finished ones that succeeded, and their attempts' durations.
 */
export const webhookStatsAnswer = once(() =>
  z.object({
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
  }),
);
