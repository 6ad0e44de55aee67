import * as z from 'zod/mini';
import { idSchema, ifMatchSchema, pageQuerySchema, secretKeySchema, versionQuerySchema, versionSchema } from '../../shared/http/schemas.ts';
import { defineRoute, listOutput, EVERYONE, type RawInput, type RouteDefinition } from '../../shared/http/route.ts';
import { isId } from '../../shared/ids.ts';
import type { ROUTE_GROUPS } from '../../shared/routes.ts';
import { SECRET_PATH, type SecretService } from '../../shared/services/secrets.ts';

type RouteKey = (typeof ROUTE_GROUPS)['secrets'][number];

const envParams = z.object({ envId: idSchema('environment') });
const secretParams = z.object({ secretId: idSchema('secret') });

/** The version a raw reveal asks for, when it is a well-formed one (prefetch only; validation decides). */
function rawVersion(value: unknown): number | undefined {
  const version = typeof value === 'string' ? Number(value) : value;
  return typeof version === 'number' && Number.isInteger(version) && version > 0 ? version : undefined;
}

/** The secrets route group: thin handlers over the secret service; first reads ride on authentication. */
export function makeSecretRoutes(service: SecretService): Record<RouteKey, RouteDefinition> {
  /** The head of the secret a by-id route names, and the version item when an older version is asked for. */
  const secretPrefetch = (raw: RawInput) => {
    const secretId = raw.params.secretId;
    if (!secretId || !isId('secret', secretId)) return [];
    return service.prefetch.byId(raw.workspaceId, secretId, rawVersion(raw.query.version));
  };
  return {
    'GET /api/v1/environments/{envId}/secrets': defineRoute({
      allow: EVERYONE,
      params: envParams,
      query: pageQuerySchema,
      handler: async ({ principal, params, query }) => {
        const page = await service.list(principal, params.envId, query);
        return listOutput(query.limit, page);
      },
    }),
    'PUT /api/v1/environments/{envId}/secrets': defineRoute({
      allow: EVERYONE,
      params: envParams,
      body: z.strictObject({ key: secretKeySchema, value: z.string().check(z.maxLength(65536)) }),
      prefetch: ({ workspaceId, params, body }) => {
        const key = (body as { key?: unknown } | undefined)?.key;
        if (!params.envId || !isId('environment', params.envId) || !secretKeySchema.safeParse(key).success) return [];
        return service.prefetch.write(workspaceId, params.envId, key as string);
      },
      headers: ifMatchSchema,
      handler: async ({ principal, params, body, headers, prefetched }) => ({
        data: await service.write(principal, params.envId, body, { ifMatch: headers['if-match'], prefetched }),
      }),
    }),
    'POST /api/v1/secrets/{secretId}/reveal': defineRoute({
      allow: EVERYONE,
      params: secretParams,
      query: z.strictObject({ version: z.optional(versionQuerySchema) }),
      prefetch: secretPrefetch,
      handler: async ({ principal, params, query, prefetched }) => ({
        data: await service.revealById(principal, params.secretId, query.version, prefetched),
      }),
    }),
    'DELETE /api/v1/secrets/{secretId}': defineRoute({
      allow: EVERYONE,
      params: secretParams,
      prefetch: secretPrefetch,
      handler: async ({ principal, params, prefetched }) => ({ data: await service.delete(principal, params.secretId, prefetched) }),
    }),
    'POST /api/v1/reveal': defineRoute({
      allow: EVERYONE,
      body: z.strictObject({ path: z.string().check(z.minLength(3), z.maxLength(600)), version: z.optional(versionSchema) }),
      prefetch: ({ workspaceId, body }) => {
        const path = (body as { path?: unknown } | undefined)?.path;
        return typeof path === 'string' && path.length <= 600 && SECRET_PATH.test(path) ? service.prefetch.byPath(workspaceId, path) : [];
      },
      handler: async ({ principal, body, prefetched }) => ({ data: await service.revealByPath(principal, body.path, body.version, prefetched) }),
    }),
    'GET /api/v1/search/secrets': defineRoute({
      allow: EVERYONE,
      query: z.extend(pageQuerySchema, { q: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
      handler: async ({ principal, query }) => {
        const page = await service.search(principal, query.q, query);
        return listOutput(query.limit, page);
      },
    }),
  };
}
