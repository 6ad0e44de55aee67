import * as z from 'zod/mini';
import { deletedResult } from '../../shared/platform/http/answer-schemas.ts';
import {
  deliveryAnswer,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  eventTypeAnswer,
  webhookEndpointAnswer,
  webhookEndpointCreated,
  type WebhookService,
} from '../../shared/webhooks/index.ts';
import { idSchema, maxUnits, minUnits, pageQuerySchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { isId } from '../../shared/platform/ids.ts';

type RouteKey = (typeof ROUTE_GROUPS)['webhooks'][number];

const urlSchema = once(() => z.string().check(minUnits(1), maxUnits(2048)));
const eventsSchema = once(() => z.array(z.enum(EVENT_TYPE_NAMES)).check(z.minLength(1), z.maxLength(EVENT_TYPE_NAMES.length * 4)));
const descriptionSchema = once(() => z.string().check(maxUnits(280)));
const endpointParams = once(() => z.object({ id: idSchema('webhookEndpoint') }));
const patchSchema = once(() =>
  z
    .strictObject({
      url: z.optional(urlSchema()),
      events: z.optional(eventsSchema()),
      description: z.optional(z.nullable(descriptionSchema())),
      enabled: z.optional(z.boolean()),
    })
    .check(
      z.refine((patch) => Object.values(patch).some((value) => value !== undefined), {
        error: 'must change at least one of url, events, description, enabled',
      }),
    ),
);

/** How long a rotated-out signing secret keeps signing when the body does not say (decisions.md). */
const DEFAULT_ROTATION_OVERLAP_HOURS = 24;
const OVERLAP_RULE = 'must be an integer from 0 to 48';
/** A rotation's optional body: `expireCurrentInHours`, 0 to 48 whole hours; an absent body or `{}` means the default. */
const rotateSecretBody = once(() =>
  z.optional(
    z.strictObject({
      expireCurrentInHours: z._default(
        z.int({ error: OVERLAP_RULE }).check(z.minimum(0, { error: OVERLAP_RULE }), z.maximum(48, { error: OVERLAP_RULE })),
        DEFAULT_ROTATION_OVERLAP_HOURS,
      ),
    }),
  ),
);

/** The webhooks route group: endpoints and one endpoint's delivery log; machine tokens may not use it. */
export function makeWebhookRoutes(service: WebhookService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/webhooks': () =>
      defineRoute({
        operationId: 'listWebhookEndpoints',
        summary: "List the workspace's webhook endpoints",
        description: 'Newest first.',
        response: z.array(webhookEndpointAnswer()),
        paged: true,
        access: 'admin',
        query: pageQuerySchema(),
        handler: async ({ principal, query }) => {
          const page = await service.list(principal, query);
          return listOutput(query.limit, page);
        },
      }),
    'POST /api/v1/webhooks': () =>
      defineRoute({
        operationId: 'createWebhookEndpoint',
        idempotent: true,
        oneTimeSecret: true,
        summary: 'Register a webhook endpoint',
        description:
          'The url must be https and resolve to public addresses only. The answer carries the `whsec_` signing secret, the only time it is shown. At most 20 endpoints per workspace. Audited as `webhook_endpoint.create`.',
        response: webhookEndpointCreated(),
        errors: ['LIMIT_EXCEEDED'],
        access: 'admin',
        status: 201,
        body: z.strictObject({ url: urlSchema(), events: eventsSchema(), description: z.optional(descriptionSchema()) }),
        handler: async ({ principal, body }) => ({ data: await service.register(principal, body) }),
      }),
    'GET /api/v1/webhooks/{id}': () =>
      defineRoute({
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint by id',
        description: "The same object as the list: the signing secret's hint, never the secret.",
        response: webhookEndpointAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: endpointParams(),
        // Read in the credential's own round trip: the lookup costs no request of its own.
        prefetch: (raw) =>
          raw.params.id && isId('webhookEndpoint', raw.params.id) ? service.prefetch(raw.workspaceId, raw.params.id) : [],
        handler: async ({ principal, params, prefetched }) => ({ data: await service.get(principal, params.id, prefetched) }),
      }),
    'PATCH /api/v1/webhooks/{id}': () =>
      defineRoute({
        operationId: 'updateWebhookEndpoint',
        idempotent: true,
        summary: 'Change a webhook endpoint',
        description: 'Url, events, description, or `enabled` (pause and resume). Audited as `webhook_endpoint.update`.',
        response: webhookEndpointAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        params: endpointParams(),
        body: patchSchema(),
        handler: async ({ principal, params, body }) => ({ data: await service.update(principal, params.id, body) }),
      }),
    'DELETE /api/v1/webhooks/{id}': () =>
      defineRoute({
        operationId: 'deleteWebhookEndpoint',
        idempotent: true,
        summary: 'Delete a webhook endpoint and its delivery log',
        description: 'Audited as `webhook_endpoint.delete`.',
        response: deletedResult('we'),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: endpointParams(),
        handler: async ({ principal, params }) => ({ data: await service.delete(principal, params.id) }),
      }),
    'GET /api/v1/webhooks/{id}/deliveries': () =>
      defineRoute({
        operationId: 'listEndpointDeliveries',
        summary: "List one endpoint's deliveries",
        description: 'Newest first, with the attempt log.',
        response: z.array(deliveryAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: endpointParams(),
        query: pageQuerySchema(),
        handler: async ({ principal, params, query }) => {
          const page = await service.endpointDeliveries(principal, params.id, query);
          return listOutput(query.limit, page);
        },
      }),
    'POST /api/v1/webhooks/{id}/rotate-secret': () =>
      defineRoute({
        operationId: 'rotateWebhookSecret',
        idempotent: true,
        oneTimeSecret: true,
        summary: "Rotate a webhook endpoint's signing secret",
        description: [
          'Makes a new `whsec_` signing secret; the answer carries it, the only time it is shown. The old secret keeps signing',
          'for `expireCurrentInHours` (0 to 48, default 24; 0 ends it at once): until then every delivery attempt is signed',
          "with both, `Service-Signature: t=<t>,v1=<new>,v1=<old>`, so a receiver verifying with either accepts it (Stripe's",
          'verifiers accept any matching `v1`), and `previousSecretExpiresAt` says when the old one stops. Only one previous',
          'secret is kept: rotating again ends it at once. A paused endpoint may be rotated. Audited as',
          '`webhook_endpoint.secret_rotate` (never with a secret or its hint).',
        ].join(' '),
        response: webhookEndpointCreated(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        params: endpointParams(),
        body: rotateSecretBody(),
        handler: async ({ principal, params, body }) => ({
          data: await service.rotateSecret(principal, params.id, body?.expireCurrentInHours ?? DEFAULT_ROTATION_OVERLAP_HOURS),
        }),
      }),
    'GET /api/v1/webhooks/event-types': () =>
      defineRoute({
        operationId: 'listWebhookEventTypes',
        summary: 'List the event types an endpoint can subscribe to',
        response: z.array(eventTypeAnswer()),
        access: 'admin',
        handler: async () => ({ data: EVENT_TYPES.map((e) => ({ ...e })) }),
      }),
  });
}
