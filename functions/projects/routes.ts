import { listRoute } from '../../shared/platform/http/list-route.ts';
import * as z from 'zod/mini';
import { projectAnswer } from '../../shared/workspaces/project-answers.ts';
import { idSchema, nameSchema, slugSchema } from '../../shared/platform/http/schemas.ts';
import { isId } from '../../shared/platform/ids.ts';
import { defineRoute, lazyRoutes, type RouteDefinition } from '../../shared/platform/http/route.ts';
import type { ProjectService } from '../../shared/workspaces/workspace-wiring.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['projects'][number];

/** The projects route group: thin handlers over the project service. */
export function makeProjectRoutes(service: ProjectService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/projects': () =>
      listRoute({
        operationId: 'listProjects',
        summary: "List the workspace's projects",
        item: projectAnswer(),
        access: 'workspace',
        list: ({ principal, query }) => service.listProjects(principal, query),
      }),
    'POST /api/v1/projects': () =>
      defineRoute({
        operationId: 'createProject',
        idempotent: true,
        summary: 'Create a project',
        description: 'The slug is derived from the name (`-2`, `-3`, … on a clash). Audited as `project.create`.',
        response: projectAnswer(),
        errors: ['CONFLICT'],
        access: 'admin',
        status: 201,
        body: z.strictObject({ name: nameSchema() }),
        handler: async ({ principal, body }) => ({ data: await service.createProject(principal, body) }),
      }),
    'GET /api/v1/projects/{projectId}': () =>
      defineRoute({
        operationId: 'getProject',
        summary: 'Get a project by id',
        description: 'The same object as the list. What the credential may not see is NOT_FOUND, as an unknown id is.',
        response: projectAnswer(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: z.object({ projectId: idSchema('project') }),
        // Read in the credential's own round trip: the lookup costs no request of its own.
        prefetch: (raw) =>
          raw.params.projectId && isId('project', raw.params.projectId)
            ? service.prefetch.project(raw.workspaceId, raw.params.projectId)
            : [],
        handler: async ({ principal, params, prefetched }) => ({ data: await service.getProject(principal, params.projectId, prefetched) }),
      }),
    'GET /api/v1/projects/by-slug/{projectSlug}': () =>
      defineRoute({
        operationId: 'getProjectBySlug',
        summary: 'Get a project by its slug',
        response: projectAnswer(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: z.object({ projectSlug: slugSchema() }),
        handler: async ({ principal, params }) => ({ data: await service.getProjectBySlug(principal, params.projectSlug) }),
      }),
  });
}
