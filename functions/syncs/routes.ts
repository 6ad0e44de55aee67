import * as z from 'zod/mini';
import { deletedResult } from '../../shared/platform/http/answer-schemas.ts';
import { once } from '../../shared/platform/http/once.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { idSchema, pageQuerySchema } from '../../shared/platform/http/schemas.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { MAX_SYNCS, type SyncService } from '../../shared/syncs/index.ts';
import { destinationInputSchema, destinationPatchSchema, keysPatternSchema, syncAnswer } from '../../shared/syncs/sync-wiring.ts';

type RouteKey = (typeof ROUTE_GROUPS)['syncs'][number];

const syncParams = once(() => z.object({ id: idSchema('sync') }));
const createBody = once(() =>
  z.strictObject({
    environmentId: idSchema('environment'),
    destination: destinationInputSchema(),
    keys: z.optional(keysPatternSchema()),
    prune: z.optional(z.boolean()),
  }),
);
const patchBody = once(() =>
  z
    .strictObject({
      destination: z.optional(destinationPatchSchema()),
      keys: z.optional(keysPatternSchema()),
      prune: z.optional(z.boolean()),
      paused: z.optional(z.boolean()),
    })
    .check(
      z.refine((patch) => Object.values(patch).some((value) => value !== undefined), {
        error: 'must change at least one of destination, keys, prune, paused',
      }),
    ),
);
const listQuery = once(() => z.extend(pageQuerySchema(), { environmentId: z.optional(idSchema('environment')) }));

const DESTINATIONS = [
  '`github-actions` (`repository` owner/repo, `environment`?, `token`, `apiUrl`? https),',
  '`aws-ssm` (`region`, `pathPrefix`, `roleArn`?, `externalId`?, `kmsKeyId`?) or',
  '`aws-secrets-manager` (`region`, `namePrefix`, `roleArn`?, `externalId`?, `kmsKeyId`?, `mode`? `secret-per-key`|`json`).',
].join(' ');

/** The syncs route group (decisions.md v1.4, "Syncs"): admins make, read, change, run and delete syncs. */
export function makeSyncRoutes(service: SyncService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'POST /api/v1/syncs': () =>
      defineRoute({
        operationId: 'createSync',
        idempotent: true,
        summary: "Push an environment's values to a destination",
        description: `Destination: ${DESTINATIONS} A token is sealed and never answered. \`keys\` is a key pattern (default \`**\`); \`prune\` (default false) deletes at the destination the keys the sync wrote that left the environment. Queues a full sync. At most ${MAX_SYNCS} syncs per workspace. Audited as \`sync.create\`.`,
        response: syncAnswer(),
        errors: ['NOT_FOUND', 'LIMIT_EXCEEDED'],
        access: 'admin',
        status: 201,
        body: createBody(),
        handler: async ({ principal, body }) => ({ data: await service.create(principal, body) }),
      }),
    'GET /api/v1/syncs': () =>
      defineRoute({
        operationId: 'listSyncs',
        summary: "List the workspace's syncs",
        description: "Newest first; `environmentId` keeps one environment's.",
        response: z.array(syncAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'admin',
        query: listQuery(),
        handler: async ({ principal, query }) => {
          const { limit, cursor, environmentId } = query;
          return listOutput(limit, await service.list(principal, { limit, cursor }, environmentId));
        },
      }),
    'GET /api/v1/syncs/{id}': () =>
      defineRoute({
        operationId: 'getSync',
        summary: 'Show a sync',
        description: 'Its destination (never a token), status, last push and last error.',
        response: syncAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: syncParams(),
        handler: async ({ principal, params }) => ({ data: await service.get(principal, params.id) }),
      }),
    'PATCH /api/v1/syncs/{id}': () =>
      defineRoute({
        operationId: 'updateSync',
        idempotent: true,
        summary: 'Change, pause or resume a sync',
        description:
          '`destination` names its type (which cannot change) and the fields to change (a new `token`; null removes an optional field); `keys`, `prune`; `paused: true` pauses it, `paused: false` resumes a paused sync (`pending`, a full sync queued). Audited as `sync.update` (never with the token).',
        response: syncAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        params: syncParams(),
        body: patchBody(),
        handler: async ({ principal, params, body }) => ({ data: await service.update(principal, params.id, body) }),
      }),
    'DELETE /api/v1/syncs/{id}': () =>
      defineRoute({
        operationId: 'deleteSync',
        idempotent: true,
        summary: 'Delete a sync',
        description: 'The values it pushed stay at the destination. Audited as `sync.delete`.',
        response: deletedResult('sync'),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: syncParams(),
        handler: async ({ principal, params }) => ({ data: await service.delete(principal, params.id) }),
      }),
    'POST /api/v1/syncs/{id}/run': () =>
      defineRoute({
        operationId: 'runSync',
        summary: 'Queue a full sync now',
        description: 'Pushes every value the sync matches, as current when it runs. A paused sync is CONFLICT.',
        response: syncAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        status: 202,
        params: syncParams(),
        handler: async ({ principal, params }) => ({ data: await service.run(principal, params.id) }),
      }),
  });
}
