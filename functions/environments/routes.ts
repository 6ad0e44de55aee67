import * as z from 'zod/mini';
import { idSchema, nameSchema, pageQuerySchema, slugSchema } from '../../shared/http/schemas.ts';
import { defineRoute, listOutput, EVERYONE, PEOPLE_AND_API_KEYS, type RouteDefinition } from '../../shared/http/route.ts';
import type { ProjectService } from '../../shared/services/projects.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['environments'][number];

const projectParams = z.object({ projectId: idSchema('project') });

/** The environments route group: thin handlers over the project service. */
export function makeEnvironmentRoutes(service: ProjectService): Record<RouteKey, RouteDefinition> {
  return {
    'GET /api/v1/projects/{projectId}/environments': defineRoute({
      allow: EVERYONE,
      params: projectParams,
      query: pageQuerySchema,
      handler: async ({ principal, params, query }) => {
        const page = await service.listEnvironments(principal, params.projectId, query);
        return listOutput(query.limit, page);
      },
    }),
    'POST /api/v1/projects/{projectId}/environments': defineRoute({
      allow: PEOPLE_AND_API_KEYS,
      status: 201,
      params: projectParams,
      body: z.strictObject({ name: nameSchema }),
      handler: async ({ principal, params, body }) => ({ data: await service.createEnvironment(principal, params.projectId, body) }),
    }),
    'GET /api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}': defineRoute({
      allow: EVERYONE,
      params: z.object({ projectSlug: slugSchema, envSlug: slugSchema }),
      handler: async ({ principal, params }) => ({
        data: await service.getEnvironmentBySlug(principal, params.projectSlug, params.envSlug),
      }),
    }),
  };
}
