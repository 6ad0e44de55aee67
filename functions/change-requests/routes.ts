import * as z from 'zod/mini';
import { changeRequestAnswer, proposedValueAnswer } from '../../shared/change-requests/change-request-answers.ts';
import { MAX_CHANGES, STATUSES, type ChangeRequestService } from '../../shared/change-requests/index.ts';
import { idSchema, maxUnits, minUnits, pageQuerySchema, secretKeySchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['change-requests'][number];

const requestParams = once(() => z.object({ id: idSchema('changeRequest') }));
const changeSchema = once(() =>
  z.union([
    z.strictObject({ key: secretKeySchema(), value: z.string().check(maxUnits(65536)) }),
    z.strictObject({ key: secretKeySchema(), delete: z.literal(true) }),
  ]),
);
const openBody = once(() =>
  z.strictObject({
    environmentId: idSchema('environment'),
    title: z.string().check(minUnits(1), maxUnits(200)),
    description: z.optional(z.string().check(maxUnits(4000))),
    changes: z.array(changeSchema()).check(z.minLength(1), z.maxLength(MAX_CHANGES)),
  }),
);
const listQuery = once(() => z.extend(pageQuerySchema(), { environmentId: idSchema('environment'), status: z.optional(z.enum(STATUSES)) }));
const reviewBody = once(() =>
  z.strictObject({ decision: z.enum(['approve', 'reject']), comment: z.optional(z.string().check(maxUnits(2000))) }),
);

/** The change-requests route group (decisions.md v1.4): propose, list, show, reveal, review, merge and close. */
export function makeChangeRequestRoutes(service: ChangeRequestService): Record<RouteKey, RouteDefinition> {
  const ofRequest = (
    operationId: string,
    summary: string,
    description: string,
    act: (p: Parameters<ChangeRequestService['merge']>[0], id: string) => Promise<unknown>,
  ) =>
    defineRoute({
      operationId,
      idempotent: true,
      summary,
      description,
      response: changeRequestAnswer(),
      errors: ['NOT_FOUND', 'CONFLICT'],
      access: 'workspace',
      params: requestParams(),
      handler: async ({ principal, params }) => ({ data: await act(principal, params.id) }),
    });
  return lazyRoutes({
    'POST /api/v1/change-requests': () =>
      defineRoute({
        operationId: 'openChangeRequest',
        idempotent: true,
        summary: "Propose changes to an environment's secrets",
        description:
          "Needs `write` on each key, and `delete` on each key it deletes. Proposed values are sealed and shown only by their reveal; each change records the key's current version as `baseVersion`. Audited as `change_request.open`.",
        response: changeRequestAnswer(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        status: 201,
        body: openBody(),
        handler: async ({ principal, body }) => ({ data: await service.open(principal, body) }),
      }),
    'GET /api/v1/change-requests': () =>
      defineRoute({
        operationId: 'listChangeRequests',
        summary: "List an environment's change requests",
        description: 'Newest first; `status` keeps one status (an open request older than 30 days is `expired`).',
        response: z.array(changeRequestAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'workspace',
        query: listQuery(),
        handler: async ({ principal, query }) => {
          const { limit, cursor, environmentId, status } = query;
          return listOutput(limit, await service.list(principal, environmentId, { limit, cursor }, status));
        },
      }),
    'GET /api/v1/change-requests/{id}': () =>
      defineRoute({
        operationId: 'getChangeRequest',
        summary: 'Show a change request',
        description: 'Its changes without their values, its reviews and its status.',
        response: changeRequestAnswer(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: requestParams(),
        handler: async ({ principal, params }) => ({ data: await service.get(principal, params.id) }),
      }),
    'POST /api/v1/change-requests/{id}/changes/{key}/reveal': () =>
      defineRoute({
        operationId: 'revealProposedValue',
        reveals: true,
        summary: 'Reveal a proposed value',
        description:
          'Needs `reveal` on the key. Audited as `secret.reveal` with `metadata.changeRequestId`; counts against the reveal rate limit.',
        response: proposedValueAnswer(),
        errors: ['NOT_FOUND', 'RATE_LIMITED'],
        access: 'workspace',
        params: z.object({ id: idSchema('changeRequest'), key: secretKeySchema() }),
        handler: async ({ principal, params }) => ({ data: await service.reveal(principal, params.id, params.key) }),
      }),
    'POST /api/v1/change-requests/{id}/reviews': () =>
      defineRoute({
        operationId: 'reviewChangeRequest',
        idempotent: true,
        summary: 'Approve or reject a change request',
        description:
          "By a person (admin or developer) or an API key, never the author's identity nor a machine token; once per identity. A reject makes it `rejected`, enough approvals `approved`. Audited as `change_request.review`.",
        response: changeRequestAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'workspace',
        params: requestParams(),
        body: reviewBody(),
        handler: async ({ principal, params, body }) => ({ data: await service.review(principal, params.id, body) }),
      }),
    'POST /api/v1/change-requests/{id}/merge': () =>
      ofRequest(
        'mergeChangeRequest',
        'Merge an approved change request',
        'By the author or a reviewer, with `write` on each key (and `delete` on each key it deletes). Every change lands in one transaction, only if each key is still at its `baseVersion` (else CONFLICT with `error.details` naming the stale keys, and nothing changes). Each version is audited as its write with `metadata.changeRequestId`; the merge as `change_request.merge`.',
        (principal, id) => service.merge(principal, id),
      ),
    'POST /api/v1/change-requests/{id}/close': () =>
      ofRequest(
        'closeChangeRequest',
        'Close a change request',
        'By its author or an admin, unless merged, closed or expired. Audited as `change_request.close`.',
        (principal, id) => service.close(principal, id),
      ),
  });
}
