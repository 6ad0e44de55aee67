import * as z from 'zod/mini';
import { toJSONSchema } from 'zod/v4/core';
import { EVENT_TYPES, PING_EVENT_TYPE } from '../../shared/webhooks/index.ts';

/**
 * The webhook events and the test event, for the document's top-level `webhooks` section: each body, the `Service-*` headers,
 * and how to verify the signature. The bodies are what shared/webhooks/deliveries/events.ts builds (a test checks real
 * deliveries against them).
 */

const secretData = z.object({
  secretId: z.string(),
  key: z.string(),
  version: z.int(),
  projectId: z.string(),
  environmentId: z.string(),
  actorSub: z.string(),
});

const changeRequestData = z.object({
  changeRequestId: z.string(),
  environmentId: z.string(),
  projectId: z.string(),
  title: z.string(),
  keys: z.array(z.string()),
});

const syncData = z.object({
  syncId: z.string(),
  environmentId: z.string(),
  projectId: z.string(),
  destinationType: z.enum(['github-actions', 'aws-ssm', 'aws-secrets-manager']),
  lastError: z.nullable(z.string()),
});

const EVENT_DATA_SCHEMAS: Record<(typeof EVENT_TYPES)[number]['type'] | typeof PING_EVENT_TYPE, z.ZodMiniType> = {
  'service.secret.create': secretData,
  // A secret whose value references a changed one is told with `via`, the changed secret (decisions.md v1.4).
  'service.secret.rotate': z.extend(secretData, { via: z.optional(z.string()) }),
  'service.secret.reveal': secretData,
  'service.secret.delete': z.omit(secretData, { version: true }),
  'service.secret.rotation_failed': z.object({
    secretId: z.string(),
    key: z.string(),
    projectId: z.string(),
    environmentId: z.string(),
    step: z.string(),
    error: z.string(),
  }),
  'service.sync.failed': syncData,
  'service.sync.recovered': syncData,
  'service.webhook_endpoint.disabled': z.object({
    endpointId: z.string(),
    url: z.string(),
    disabledAt: z.string(),
    disabledReason: z.string(),
    consecutiveFailures: z.int(),
    failingSince: z.string(),
  }),
  'service.change_request.opened': changeRequestData,
  'service.change_request.approved': changeRequestData,
  'service.change_request.merged': changeRequestData,
  'service.change_request.closed': changeRequestData,
  [PING_EVENT_TYPE]: z.object({ endpointId: z.string() }),
};

/**
 * Every event a receiver may get: the subscribable types, and the test event, which `POST /webhooks/{id}/test` sends
 * to one endpoint whatever it subscribes to.
 */
const DELIVERED_EVENTS = [
  ...EVENT_TYPES,
  {
    type: PING_EVENT_TYPE,
    description:
      'A test event, sent on request (`POST /api/v1/webhooks/{id}/test`) to one endpoint whatever it subscribes to; not subscribable.',
  },
] as const;

/** The body of one event type. */
export function eventSchema(type: keyof typeof EVENT_DATA_SCHEMAS) {
  return z.object({ id: z.string(), type: z.literal(type), account: z.string(), occurredAt: z.string(), data: EVENT_DATA_SCHEMAS[type] });
}

const HEADERS: Record<string, string> = {
  'Service-Signature':
    '`t=<unix seconds>,v1=<hex HMAC-SHA256>`: the HMAC of `<t>.<raw body>` keyed with the whole signing secret (`whsec_…`, prefix included). More than one `v1=` may come during a secret rotation; accept any.',
  'Service-Event-Id': 'The event id (`evt_…`): the same on every attempt and every endpoint; deduplicate on it.',
  'Service-Event-Type': 'The event type, as in the body.',
  'Service-Delivery-Id': 'The delivery id (`whd_…`): one per event and endpoint.',
  'Service-Delivery-Attempt': 'The attempt number, 1 to 6 (a manual retry or a recovery adds one).',
};

const VERIFY = [
  'Verify before parsing: take the raw body bytes, read `t` and every `v1` of `Service-Signature`, compute',
  'HMAC-SHA256(key = the whole `whsec_…` secret, message = `<t>.<raw body>`) in hex and compare in constant time;',
  "refuse a `t` more than 5 minutes from now. Stripe's `webhooks.constructEvent` and the SDK's `verifyWebhook` do",
  'exactly this. Answer 2xx within 10 s; anything else is retried after 1 min, 5 min, 25 min, 2 h and 12 h.',
].join(' ');

/** The `webhooks` section: one POST per event type, and the test event. */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    DELIVERED_EVENTS.map(({ type, description }) => [
      type,
      {
        post: {
          operationId: `on${type
            .split(/[._]/)
            .map((part) => part[0]!.toUpperCase() + part.slice(1))
            .join('')}`,
          summary: description,
          description: VERIFY,
          parameters: Object.entries(HEADERS).map(([name, text]) => ({
            name,
            in: 'header',
            required: true,
            description: text,
            schema: { type: 'string' },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(eventSchema(type)) } } },
          responses: { '2XX': { description: 'Received. Any other answer, or none within 10 s, is a failed attempt.' } },
        },
      },
    ]),
  );
}

/** A zod schema as an OpenAPI 3.1 (JSON Schema 2020-12) schema, without the `$schema` line. */
export function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = toJSONSchema(schema as never, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}
