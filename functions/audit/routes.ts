import * as z from 'zod/mini';
import { auditEntryAnswer } from '../../shared/audit/audit-answers.ts';
import { maxUnits, minUnits, pageQuerySchema, timestampSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { AUDIT_ACTIONS } from '../../shared/audit/index.ts';
import type { AuditService } from '../../shared/audit/audit-wiring.ts';

type RouteKey = (typeof ROUTE_GROUPS)['audit'][number];

const auditQuery = once(() =>
  z
    .extend(pageQuerySchema(), {
      action: z.optional(z.enum(AUDIT_ACTIONS)),
      target: z.optional(z.string().check(minUnits(1), maxUnits(64))),
      actorSub: z.optional(z.string().check(minUnits(1), maxUnits(256))),
      since: z.optional(timestampSchema()),
      until: z.optional(timestampSchema()),
    })
    .check(
      z.refine((q) => q.since === undefined || q.until === undefined || q.since <= q.until, {
        error: 'must not be before since',
        path: ['until'],
      }),
    ),
);

/** The audit route group: the workspace's audit log, newest first, with filters. */
export function makeAuditRoutes(service: AuditService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/audit': () =>
      defineRoute({
        operationId: 'listAuditEntries',
        summary: "List the workspace's audit log",
        description: 'Newest first, with optional filters.',
        response: z.array(auditEntryAnswer()),
        paged: true,
        access: 'admin',
        query: auditQuery(),
        handler: async ({ principal, query }) => {
          const { limit, cursor, ...filter } = query;
          const page = await service.list(principal, { limit, cursor }, filter);
          return listOutput(limit, page);
        },
      }),
  });
}
