import * as z from 'zod/mini';
import { environmentAnswer, environmentDetail } from '../../shared/workspaces/project-answers.ts';
import { isId } from '../../shared/platform/ids.ts';
import { idSchema, nameSchema, pageQuerySchema, slugSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ProjectService } from '../../shared/workspaces/workspace-wiring.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['environments'][number];

const projectParams = once(() => z.object({ projectId: idSchema('project') }));

/** The environments route group: thin handlers over the project service. */
export function makeEnvironmentRoutes(service: ProjectService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/projects/{projectId}/environments': () =>
      defineRoute({
        operationId: 'listEnvironments',
        summary: "List a project's environments",
        description: 'Newest first.',
        response: z.array(environmentAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: projectParams(),
        query: pageQuerySchema(),
        handler: async ({ principal, params, query }) => {
          const page = await service.listEnvironments(principal, params.projectId, query);
          return listOutput(query.limit, page);
        },
      }),
    'POST /api/v1/projects/{projectId}/environments': () =>
      defineRoute({
        operationId: 'createEnvironment',
        idempotent: true,
        summary: 'Create an environment in a project',
        description: 'The slug is unique within the project. Audited as `environment.create`.',
        response: environmentAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        status: 201,
        params: projectParams(),
        body: z.strictObject({ name: nameSchema() }),
        handler: async ({ principal, params, body }) => ({ data: await service.createEnvironment(principal, params.projectId, body) }),
      }),
    'GET /api/v1/environments/{envId}': () =>
      defineRoute({
        operationId: 'getEnvironment',
        summary: 'Get an environment by id',
        description:
          "The same object as its project's list, plus `projectSlug`. What the credential may not see is NOT_FOUND, as an unknown id is.",
        response: environmentDetail(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: z.object({ envId: idSchema('environment') }),
        // Read in the credential's own round trip: the lookup costs no request of its own.
        prefetch: (raw) =>
          raw.params.envId && isId('environment', raw.params.envId) ? service.prefetch.environment(raw.workspaceId, raw.params.envId) : [],
        handler: async ({ principal, params, prefetched }) => ({ data: await service.getEnvironment(principal, params.envId, prefetched) }),
      }),
    'GET /api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}': () =>
      defineRoute({
        operationId: 'getEnvironmentBySlug',
        summary: "Get an environment by its project's and its own slug",
        response: environmentAnswer(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: z.object({ projectSlug: slugSchema(), envSlug: slugSchema() }),
        handler: async ({ principal, params }) => ({
          data: await service.getEnvironmentBySlug(principal, params.projectSlug, params.envSlug),
        }),
      }),
  });
}
