import * as z from 'zod/mini';
import { nameSchema, pageQuerySchema, slugSchema } from '../../shared/http/schemas.ts';
import { defineRoute, listOutput, EVERYONE, PEOPLE_AND_API_KEYS, type RouteDefinition } from '../../shared/http/route.ts';
import type { ProjectService } from '../../shared/services/projects.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['projects'][number];

/** The projects route group: thin handlers over the project service. */
export function makeProjectRoutes(service: ProjectService): Record<RouteKey, RouteDefinition> {
  return {
    'GET /api/v1/projects': defineRoute({
      allow: EVERYONE,
      query: pageQuerySchema,
      handler: async ({ principal, query }) => {
        const page = await service.listProjects(principal, query);
        return listOutput(query.limit, page);
      },
    }),
    'POST /api/v1/projects': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      status: 201,
      body: z.strictObject({ name: nameSchema }),
      handler: async ({ principal, body }) => ({ data: await service.createProject(principal, body) }),
    }),
    'GET /api/v1/projects/by-slug/{projectSlug}': defineRoute({
      allow: EVERYONE,
      params: z.object({ projectSlug: slugSchema }),
      handler: async ({ principal, params }) => ({ data: await service.getProjectBySlug(principal, params.projectSlug) }),
    }),
  };
}
