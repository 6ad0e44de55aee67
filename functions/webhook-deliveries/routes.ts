import * as z from 'zod/mini';
import { deliveryAnswer } from '../../shared/http/answers.ts';
import { idSchema, maxUnits, minUnits, pageQuerySchema } from '../../shared/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/http/route.ts';
import { once } from '../../shared/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';
import type { DeliveryService } from '../../shared/services/webhooks.ts';

type RouteKey = (typeof ROUTE_GROUPS)['webhook-deliveries'][number];

const deliveryParams = once(() => z.object({ id: idSchema('delivery') }));

/** The webhook-deliveries route group: the workspace's delivery log and manual retries. */
export function makeDeliveryRoutes(service: DeliveryService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/webhook-deliveries': () => defineRoute({
      operationId: 'listDeliveries',
      summary: 'List the workspace\'s webhook deliveries',
      description: 'Newest first, filtered by endpoint, status or event type.',
      response: z.array(deliveryAnswer()),
      paged: true,
      errors: ['NOT_FOUND'],
      access: 'admin',
      query: z.extend(pageQuerySchema(), {
        endpointId: z.optional(idSchema('webhookEndpoint')),
        status: z.optional(z.enum(['pending', 'success', 'failed'])),
        eventType: z.optional(z.string().check(minUnits(1), maxUnits(64))),
      }),
      handler: async ({ principal, query }) => {
        const { limit, cursor, ...filter } = query;
        const page = await service.listDeliveries(principal, filter, { limit, cursor });
        return listOutput(limit, page);
      },
    }),
    'GET /api/v1/webhook-deliveries/{id}': () => defineRoute({
      operationId: 'getDelivery',
      summary: 'Get a delivery with its attempt log',
      response: deliveryAnswer(),
      errors: ['NOT_FOUND'],
      access: 'admin',
      params: deliveryParams(),
      handler: async ({ principal, params }) => ({ data: await service.getDelivery(principal, params.id) }),
    }),
    'POST /api/v1/webhook-deliveries/{id}/retry': () => defineRoute({
      operationId: 'retryDelivery',
      idempotent: true,
      summary: 'Send a finished delivery again, once, now',
      description: 'Audited as `webhook_delivery.retry`.',
      response: deliveryAnswer(),
      errors: ['NOT_FOUND', 'ALREADY_QUEUED', 'ENDPOINT_DISABLED'],
      access: 'admin',
      status: 202,
      params: deliveryParams(),
      handler: async ({ principal, params }) => ({ data: await service.retry(principal, params.id) }),
    }),
  });
}
