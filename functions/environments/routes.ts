import * as z from 'zod/mini';
import { environmentAnswer, environmentDetail, reviewPolicyAnswer } from '../../shared/workspaces/project-answers.ts';
import { isId } from '../../shared/platform/ids.ts';
import { deletedResult } from '../../shared/platform/http/answer-schemas.ts';
import { idSchema, maxUnits, nameSchema, pageQuerySchema, slugSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ProjectService } from '../../shared/workspaces/workspace-wiring.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['environments'][number];

const projectParams = once(() => z.object({ projectId: idSchema('project') }));
const envParams = once(() => z.object({ envId: idSchema('environment') }));

/** At most this many access keys may write a protected environment directly. */
export const MAX_BYPASS_KEYS = 20;

/** An id of a credential that can call the API with its own id: an API key (`key_`) or an access key (`ak_`). */
const bypassKeySchema = once(() =>
  z.string().check(
    maxUnits(64),
    z.refine((value) => isId('apiKey', value) || isId('accessKey', value), { error: 'must be a key_ or ak_ id' }),
  ),
);

/** `PUT …/review-policy`: 1 to 5 approvals; up to MAX_BYPASS_KEYS distinct access key ids. */
const reviewPolicyBody = once(() =>
  z.strictObject({
    requiredApprovals: z.int().check(z.gte(1), z.lte(5)),
    bypass: z.optional(
      z.array(bypassKeySchema()).check(
        z.maxLength(MAX_BYPASS_KEYS),
        z.refine((ids) => new Set(ids).size === ids.length, { error: 'must not repeat an id' }),
      ),
    ),
  }),
);

/** The environment read ahead with the credential: a policy's read and writes then cost no request of their own. */
const environmentAhead = (service: ProjectService) => (raw: { workspaceId: string; params: Record<string, string | undefined> }) =>
  raw.params.envId && isId('environment', raw.params.envId) ? service.prefetch.environment(raw.workspaceId, raw.params.envId) : [];

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
        params: envParams(),
        // Read in the credential's own round trip: the lookup costs no request of its own.
        prefetch: environmentAhead(service),
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
    'PUT /api/v1/environments/{envId}/review-policy': () =>
      defineRoute({
        operationId: 'putReviewPolicy',
        idempotent: true,
        summary: "Set an environment's review policy",
        description:
          "Admin only. With a policy, every write to the environment's secrets by a credential not in `bypass` is REVIEW_REQUIRED: it goes through a change request. Each id in `bypass` must be an unrevoked API key or access key of the workspace (else VALIDATION_ERROR naming it). Replaces any policy before it. Audited as `review_policy.set`.",
        response: reviewPolicyAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: envParams(),
        body: reviewPolicyBody(),
        prefetch: environmentAhead(service),
        handler: async ({ principal, params, body, prefetched }) => ({
          data: await service.setReviewPolicy(principal, params.envId, body, prefetched),
        }),
      }),
    'GET /api/v1/environments/{envId}/review-policy': () =>
      defineRoute({
        operationId: 'getReviewPolicy',
        summary: "Get an environment's review policy",
        description: 'Admin only. `data` is null when the environment has none.',
        response: z.nullable(reviewPolicyAnswer()),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: envParams(),
        prefetch: environmentAhead(service),
        handler: async ({ principal, params, prefetched }) => ({
          data: await service.getReviewPolicy(principal, params.envId, prefetched),
        }),
      }),
    'DELETE /api/v1/environments/{envId}/review-policy': () =>
      defineRoute({
        operationId: 'deleteReviewPolicy',
        idempotent: true,
        summary: "Remove an environment's review policy",
        description: 'Admin only. NOT_FOUND when the environment has none. Audited as `review_policy.delete`.',
        response: deletedResult('env'),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: envParams(),
        prefetch: environmentAhead(service),
        handler: async ({ principal, params, prefetched }) => ({
          data: await service.deleteReviewPolicy(principal, params.envId, prefetched),
        }),
      }),
  });
}
