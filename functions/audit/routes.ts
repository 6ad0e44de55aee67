import * as z from 'zod';
import { pageQuerySchema, timestampSchema } from '../../shared/http/schemas.ts';
import { defineRoute, PEOPLE_AND_API_KEYS, type RouteDefinition } from '../../shared/http/route.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';
import { AUDIT_ACTIONS } from '../../shared/services/audit.ts';
import type { Store } from '../../shared/store/index.ts';

type RouteKey = (typeof ROUTE_GROUPS)['audit'][number];

const auditQuery = pageQuerySchema
  .extend({
    action: z.enum(AUDIT_ACTIONS).optional(),
    target: z.string().min(1).max(64).optional(),
    actorSub: z.string().min(1).max(256).optional(),
    since: timestampSchema.optional(),
    until: timestampSchema.optional(),
  })
  .refine((q) => q.since === undefined || q.until === undefined || q.since <= q.until, {
    message: 'must not be before since',
    path: ['until'],
  });

/** The audit route group: the workspace's audit log, newest first, with filters. */
export function makeAuditRoutes(store: Pick<Store, 'listAudit'>): Record<RouteKey, RouteDefinition> {
  return {
    'GET /api/v1/audit': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      query: auditQuery,
      handler: async ({ principal, query }) => {
        const { limit, cursor, ...filter } = query;
        const page = await store.listAudit(principal.workspaceId, { limit, cursor }, filter);
        return { data: page.items, page: { limit, nextCursor: page.nextCursor, hasMore: page.hasMore } };
      },
    }),
  };
}
