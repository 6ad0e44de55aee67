import * as z from 'zod/mini';
import { idSchema, nameSchema, pageQuerySchema } from '../../shared/http/schemas.ts';
import { defineRoute, listOutput, PEOPLE_AND_API_KEYS, type RouteDefinition } from '../../shared/http/route.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';
import type { AccessKeyService } from '../../shared/services/access-keys.ts';

type RouteKey = (typeof ROUTE_GROUPS)['access-keys'][number];

/** The access-keys route group: people and API keys manage machine identities; machine tokens may not. */
export function makeAccessKeyRoutes(service: AccessKeyService): Record<RouteKey, RouteDefinition> {
  return {
    'GET /api/v1/access-keys': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      query: pageQuerySchema,
      handler: async ({ principal, query }) => {
        const page = await service.list(principal, query);
        return listOutput(query.limit, page);
      },
    }),
    'POST /api/v1/access-keys': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      status: 201,
      body: z.strictObject({ name: nameSchema, expiresInDays: z.optional(z.int().check(z.minimum(1), z.maximum(3650))) }),
      handler: async ({ principal, body }) => ({ data: await service.create(principal, body) }),
    }),
    'POST /api/v1/access-keys/{id}/revoke': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      params: z.object({ id: idSchema('accessKey') }),
      handler: async ({ principal, params }) => ({ data: await service.revoke(principal, params.id) }),
    }),
  };
}
