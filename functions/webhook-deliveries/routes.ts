import * as z from 'zod/mini';
import {
  deliveryAnswer,
  webhookStatsAnswer,
  type DeliveryService,
  type DeliveryStatsService,
  type WebhookOperations,
} from '../../shared/webhooks/index.ts';
import { idSchema, maxUnits, minUnits, pageQuerySchema, timestampSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['webhook-deliveries'][number];

const deliveryParams = once(() => z.object({ id: idSchema('delivery') }));
const endpointParams = once(() => z.object({ id: idSchema('webhookEndpoint') }));

/** The webhook-deliveries route group: the workspace's delivery log, manual retries, test events and recoveries. */
export function makeDeliveryRoutes(
  service: DeliveryService,
  operations: WebhookOperations,
  stats: DeliveryStatsService,
): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/webhook-deliveries': () =>
      defineRoute({
        operationId: 'listDeliveries',
        summary: "List the workspace's webhook deliveries",
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
    'GET /api/v1/webhook-deliveries/{id}': () =>
      defineRoute({
        operationId: 'getDelivery',
        summary: 'Get a delivery with its attempt log',
        response: deliveryAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: deliveryParams(),
        handler: async ({ principal, params }) => ({ data: await service.getDelivery(principal, params.id) }),
      }),
    'POST /api/v1/webhook-deliveries/{id}/retry': () =>
      defineRoute({
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
    'GET /api/v1/webhooks/{id}/stats': () =>
      defineRoute({
        operationId: 'getWebhookStats',
        summary: 'Delivery statistics of one endpoint',
        description:
          "Deliveries created since `since` (default 24 hours ago; at most 30 days ago, not in the future), to the millisecond, by their status now, `deliveries` being the three added up; `successRate` = succeeded / (succeeded + failed), null when both are 0; the 50th and 95th percentiles of their attempts' durations (ms), null when none. The answer's `since` is the one counted from. The percentiles come from a fixed histogram of durations, interpolated within a bin (to within its width). A change may show a few seconds late; while the statistics are being brought up to date after a long pause of the pipeline, 503 SERVICE_UNAVAILABLE with `Retry-After`.",
        response: webhookStatsAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: endpointParams(),
        query: z.strictObject({ since: z.optional(timestampSchema()) }),
        handler: async ({ principal, params, query }) => ({ data: await stats.stats(principal, params.id, query.since) }),
      }),
    'POST /api/v1/webhooks/{id}/test': () =>
      defineRoute({
        operationId: 'sendWebhookTestEvent',
        idempotent: true,
        summary: 'Send a test event to one endpoint',
        description:
          'A `service.ping` event (`data = {endpointId}`) to this endpoint alone, whatever it subscribes to, through the normal pipeline: signed, retried and logged like any delivery. Answers its delivery, pending. Audited as `webhook_endpoint.test`.',
        response: deliveryAnswer(),
        errors: ['NOT_FOUND', 'ENDPOINT_DISABLED'],
        access: 'admin',
        status: 202,
        params: endpointParams(),
        handler: async ({ principal, params }) => ({ data: await operations.test(principal, params.id) }),
      }),
    'POST /api/v1/webhooks/{id}/recover': () =>
      defineRoute({
        operationId: 'recoverWebhookDeliveries',
        idempotent: true,
        summary: "Send an endpoint's failed deliveries again",
        description:
          'Every `failed` delivery of the endpoint created between `since` (at most 14 days ago) and `until` (default now) is queued again: pending, same delivery id, one more attempt that continues its attempt log and `Service-Delivery-Attempt`. Answers at once with how many; they are queued in the background. Audited as `webhook_endpoint.recover` with the span and the count.',
        response: z.object({ queued: z.int() }),
        errors: ['NOT_FOUND', 'ENDPOINT_DISABLED'],
        access: 'admin',
        status: 202,
        params: endpointParams(),
        body: z.strictObject({ since: timestampSchema(), until: z.optional(timestampSchema()) }),
        handler: async ({ principal, params, body }) => ({ data: await operations.recover(principal, params.id, body) }),
      }),
  });
}
