import * as z from 'zod/mini';
import { idSchema, pageQuerySchema } from '../../shared/http/schemas.ts';
import { defineRoute, listOutput, PEOPLE_AND_API_KEYS, type RouteDefinition } from '../../shared/http/route.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';
import type { WebhookService } from '../../shared/services/webhooks.ts';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../shared/webhooks/events.ts';

type RouteKey = (typeof ROUTE_GROUPS)['webhooks'][number];

const urlSchema = z.string().check(z.minLength(1), z.maxLength(2048));
const eventsSchema = z.array(z.enum(EVENT_TYPE_NAMES)).check(z.minLength(1), z.maxLength(EVENT_TYPE_NAMES.length * 4));
const descriptionSchema = z.string().check(z.maxLength(280));
const endpointParams = z.object({ id: idSchema('webhookEndpoint') });
const patchSchema = z
  .strictObject({
    url: z.optional(urlSchema),
    events: z.optional(eventsSchema),
    description: z.optional(z.nullable(descriptionSchema)),
    enabled: z.optional(z.boolean()),
  })
  .check(z.refine((patch) => Object.values(patch).some((value) => value !== undefined), { error: 'must change at least one of url, events, description, enabled' }));

/** The webhooks route group: endpoints and one endpoint's delivery log; machine tokens may not use it. */
export function makeWebhookRoutes(service: WebhookService): Record<RouteKey, RouteDefinition> {
  return {
    'GET /api/v1/webhooks': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      query: pageQuerySchema,
      handler: async ({ principal, query }) => {
        const page = await service.list(principal, query);
        return listOutput(query.limit, page);
      },
    }),
    'POST /api/v1/webhooks': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      status: 201,
      body: z.strictObject({ url: urlSchema, events: eventsSchema, description: z.optional(descriptionSchema) }),
      handler: async ({ principal, body }) => ({ data: await service.register(principal, body) }),
    }),
    'PATCH /api/v1/webhooks/{id}': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      params: endpointParams,
      body: patchSchema,
      handler: async ({ principal, params, body }) => ({ data: await service.update(principal, params.id, body) }),
    }),
    'DELETE /api/v1/webhooks/{id}': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      params: endpointParams,
      handler: async ({ principal, params }) => ({ data: await service.delete(principal, params.id) }),
    }),
    'GET /api/v1/webhooks/{id}/deliveries': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      params: endpointParams,
      query: pageQuerySchema,
      handler: async ({ principal, params, query }) => {
        const page = await service.endpointDeliveries(principal, params.id, query);
        return listOutput(query.limit, page);
      },
    }),
    'GET /api/v1/webhooks/event-types': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      handler: async () => ({ data: EVENT_TYPES.map((e) => ({ ...e })) }),
    }),
  };
}
