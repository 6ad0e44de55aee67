import { listRoute } from '../../shared/platform/http/list-route.ts';
import * as z from 'zod/mini';
import { idSchema, nameSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, type RouteDefinition } from '../../shared/platform/http/route.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import {
  accessKeyAnswer,
  accessKeyAuthSchema,
  accessKeyCreated,
  allowedCidrsSchema,
  permissionsSchema,
  tokenTtlSchema,
  type AccessKeyService,
} from '../../shared/access/access-key-wiring.ts';
import { isId } from '../../shared/platform/ids.ts';

type RouteKey = (typeof ROUTE_GROUPS)['access-keys'][number];

/** The access-keys route group: people and API keys manage machine identities; machine tokens may not. */
export function makeAccessKeyRoutes(service: AccessKeyService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/access-keys': () =>
      listRoute({
        operationId: 'listAccessKeys',
        summary: "List the workspace's access keys",
        description: 'Newest first. Never a token.',
        item: accessKeyAnswer(),
        access: 'admin',
        list: ({ principal, query }) => service.list(principal, query),
      }),
    'POST /api/v1/access-keys': () =>
      defineRoute({
        operationId: 'createAccessKey',
        idempotent: true,
        oneTimeSecret: true,
        summary: 'Create an access key (a machine identity and its token)',
        description: [
          'The answer carries the `st_` token, the only time it is shown. At most 100 unrevoked keys per workspace. Audited as `access_key.create`.',
          '`permissions` (1 to 50 rules) scopes what the token may do; without it the key may read, reveal, write and delete every secret.',
          "`allowedCidrs` (0 to 20) limits where it may be used from (API Gateway's source address).",
          '`auth` `{"type":"aws_iam","principalArns":[…]}` or `{"type":"oidc",…}` makes a key whose workloads log in (`POST /api/v1/auth/login`) for tokens of `tokenTtlSeconds` (60 to 43200, default 900) instead of holding one: its answer has `token: null`.',
          '`auth` `{"type":"aws_sigv4"}` makes a key that signs requests to the AWS Secrets Manager API (`POST /`) with an AWS key pair: its answer has `token: null` and `awsSecretAccessKey` (40 characters, shown this once), and the record shows `auth.awsAccessKeyId`.',
        ].join(' '),
        response: accessKeyCreated(),
        errors: ['LIMIT_EXCEEDED'],
        access: 'admin',
        status: 201,
        body: z.strictObject({
          name: nameSchema(),
          expiresInDays: z.optional(z.int().check(z.minimum(1), z.maximum(3650))),
          permissions: z.optional(permissionsSchema()),
          allowedCidrs: z.optional(allowedCidrsSchema()),
          auth: z.optional(accessKeyAuthSchema()),
          tokenTtlSeconds: z.optional(tokenTtlSchema()),
        }),
        handler: async ({ principal, body }) => ({ data: await service.create(principal, body) }),
      }),
    'GET /api/v1/access-keys/{id}': () =>
      defineRoute({
        operationId: 'getAccessKey',
        summary: 'Get an access key by id',
        description: 'The same record as the list. Never a token.',
        response: accessKeyAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: z.object({ id: idSchema('accessKey') }),
        // Read in the credential's own round trip: the lookup costs no request of its own.
        prefetch: (raw) => (raw.params.id && isId('accessKey', raw.params.id) ? service.prefetch(raw.workspaceId, raw.params.id) : []),
        handler: async ({ principal, params, prefetched }) => ({ data: await service.get(principal, params.id, prefetched) }),
      }),
    'PATCH /api/v1/access-keys/{id}': () =>
      defineRoute({
        operationId: 'updateAccessKey',
        idempotent: true,
        summary: "Change an access key's name, permissions or allowed networks",
        description:
          'Takes effect on the next request of every token of the key. Audited as `access_key.update` with the changed fields and their new values. A revoked key cannot be changed (CONFLICT).',
        response: accessKeyAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        params: z.object({ id: idSchema('accessKey') }),
        body: z
          .strictObject({
            name: z.optional(nameSchema()),
            permissions: z.optional(permissionsSchema()),
            allowedCidrs: z.optional(allowedCidrsSchema()),
          })
          .check(z.refine((body) => Object.keys(body).length > 0, { error: 'must name at least one of name, permissions, allowedCidrs' })),
        handler: async ({ principal, params, body }) => ({ data: await service.update(principal, params.id, body) }),
      }),
    'POST /api/v1/access-keys/{id}/revoke': () =>
      defineRoute({
        operationId: 'revokeAccessKey',
        idempotent: true,
        summary: 'Revoke an access key',
        description: 'Takes effect on the next request; idempotent (audited once as `access_key.revoke`).',
        response: accessKeyAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: z.object({ id: idSchema('accessKey') }),
        handler: async ({ principal, params }) => ({ data: await service.revoke(principal, params.id) }),
      }),
  });
}
