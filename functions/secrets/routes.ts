import * as z from 'zod/mini';
import { deletedResult } from '../../shared/platform/http/answer-schemas.ts';
import {
  deletedSecretAnswer,
  environmentValueAnswer,
  revealByPathResult,
  revealResult,
  secretDetail,
  secretListItem,
  secretSearchItem,
  secretWriteResult,
  versionAnswer,
} from '../../shared/secrets/secret-answers.ts';
import {
  idSchema,
  ifMatchSchema,
  maxUnits,
  minUnits,
  pageQueryOf,
  pageQuerySchema,
  recoveryWindowQuerySchema,
  secretKeySchema,
  versionQuerySchema,
  versionSchema,
} from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RawInput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import { isId } from '../../shared/platform/ids.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { SECRET_PATH, type DeletedSecretService, type SecretService } from '../../shared/secrets/index.ts';
import type { RotationService } from '../../shared/rotation/index.ts';
import { rotationRoutes } from './rotation-routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['secrets'][number];

const envParams = once(() => z.object({ envId: idSchema('environment') }));
const secretParams = once(() => z.object({ secretId: idSchema('secret') }));

/**
 * `?raw=true` on a reveal: the text as written, its references unresolved (decisions.md v1.4, "Secret references").
 */
const rawQuery = () =>
  z.optional(
    z.pipe(
      z.enum(['true', 'false'], { error: 'must be true or false' }),
      z.transform((raw) => raw === 'true'),
    ),
  );

/** The version a raw reveal asks for, when it is a well-formed one (prefetch only; validation decides). */
function rawVersion(value: unknown): number | undefined {
  const version = typeof value === 'string' ? Number(value) : value;
  return typeof version === 'number' && Number.isInteger(version) && version > 0 ? version : undefined;
}

/** The secrets route group: thin handlers over the secret service; first reads ride on authentication. */
export function makeSecretRoutes(
  service: SecretService,
  deleted: DeletedSecretService,
  rotations: RotationService,
): Record<RouteKey, RouteDefinition> {
  /** The head of the secret a by-id route names, and the version item when an older version is asked for. */
  const secretPrefetch = (raw: RawInput, forReveal = false) => {
    const secretId = raw.params.secretId;
    if (!secretId || !isId('secret', secretId)) return [];
    return (forReveal ? service.prefetch.revealById : service.prefetch.byId)(raw.workspaceId, secretId, rawVersion(raw.query.version));
  };
  return lazyRoutes({
    ...rotationRoutes(rotations),
    'GET /api/v1/environments/{envId}/secrets': () =>
      defineRoute({
        operationId: 'listSecrets',
        summary: "List an environment's secrets",
        description: 'Sorted by key A→Z. Never a value.',
        response: z.array(secretListItem()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: envParams(),
        query: pageQuerySchema(),
        handler: async ({ principal, params, query }) => {
          const page = await service.list(principal, params.envId, query);
          return listOutput(query.limit, page);
        },
      }),
    'PUT /api/v1/environments/{envId}/secrets': () =>
      defineRoute({
        operationId: 'putSecret',
        idempotent: true,
        summary: "Write a secret's next version",
        description:
          'Creates version 1 of a new key or the next version of an existing one. `If-Match: <version>` makes it check-and-set (0 = must not exist). Audited as `secret.create` or `secret.rotate`; fires `service.secret.create` or `service.secret.rotate`.',
        response: secretWriteResult(),
        errors: ['NOT_FOUND', 'CONFLICT', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: envParams(),
        body: z.strictObject({ key: secretKeySchema(), value: z.string().check(maxUnits(65536)) }),
        prefetch: ({ workspaceId, params, body }) => {
          const key = (body as { key?: unknown } | undefined)?.key;
          if (!params.envId || !isId('environment', params.envId) || !secretKeySchema().safeParse(key).success) return [];
          return service.prefetch.write(workspaceId, params.envId, key as string);
        },
        headers: ifMatchSchema(),
        handler: async ({ principal, params, body, headers, prefetched }) => ({
          data: await service.write(principal, params.envId, body, { ifMatch: headers['if-match'], prefetched }),
        }),
      }),
    'POST /api/v1/secrets/{secretId}/reveal': () =>
      defineRoute({
        operationId: 'revealSecret',
        reveals: true,
        summary: "Reveal a secret's value",
        description:
          'The current version, or `?version=N`. Audited as `secret.reveal` before the value leaves; fires `service.secret.reveal`. Rate limited per credential and per workspace (120 and 1200 a minute by default, both reveal routes together). A binary value (written through the AWS API as `SecretBinary`) is answered base64-encoded, with `encoding: "base64"`; a secret created without a value (version 0) is NOT_FOUND until its first version is written. A current value\'s references (`${KEY}`, `${env.KEY}`, `${project.env.KEY}`) are resolved, each target needing `reveal` and audited as its own `secret.reveal` with `metadata.via`; one that cannot be resolved is CONFLICT with `error.details` (`unresolvable`, `cycle`, `too_deep`) and no value. `?raw=true` and a past version answer the text as written.',
        response: revealResult(),
        errors: ['NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
        access: 'workspace',
        params: secretParams(),
        query: z.strictObject({ version: z.optional(versionQuerySchema()), raw: rawQuery() }),
        prefetch: (raw) => secretPrefetch(raw, true),
        handler: async ({ principal, params, query, prefetched }) => ({
          data: await service.revealById(principal, params.secretId, query.version, prefetched, query.raw),
        }),
      }),
    'DELETE /api/v1/secrets/{secretId}': () =>
      defineRoute({
        operationId: 'deleteSecret',
        idempotent: true,
        summary: 'Delete a secret, restorable for a recovery window',
        description:
          'Gone at once from every lookup (its key is free for a new secret); `recoveryWindowDays` (0, or 7 to 30; default 7) keeps it restorable (`POST /api/v1/secrets/{secretId}/restore`) until then, 0 purges every version at once. Audited as `secret.delete`; fires `service.secret.delete`.',
        response: deletedResult('sec'),
        errors: ['NOT_FOUND', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        query: z.strictObject({ recoveryWindowDays: z.optional(recoveryWindowQuerySchema()) }),
        prefetch: secretPrefetch,
        handler: async ({ principal, params, query, prefetched }) => ({
          data: await service.delete(principal, params.secretId, query.recoveryWindowDays, prefetched),
        }),
      }),
    'GET /api/v1/environments/{envId}/secrets/deleted': () =>
      defineRoute({
        operationId: 'listDeletedSecrets',
        summary: "List an environment's deleted secrets, still restorable",
        description:
          'Newest deletion first, each with `deletedAt`, `deletedBy` and `purgeAt`; what is past `purgeAt` is gone. Never a value.',
        response: z.array(deletedSecretAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: envParams(),
        query: pageQuerySchema(),
        handler: async ({ principal, params, query }) => listOutput(query.limit, await deleted.list(principal, params.envId, query)),
      }),
    'POST /api/v1/secrets/{secretId}/restore': () =>
      defineRoute({
        operationId: 'restoreSecret',
        idempotent: true,
        summary: 'Restore a deleted secret whole',
        description:
          'Same id, every version and its history, within its recovery window (past `purgeAt`, or never deleted: NOT_FOUND). CONFLICT when a live secret of its key exists in its environment. Needs `delete` on it. Audited as `secret.restore`; fires `service.secret.create` with its current version.',
        response: secretWriteResult(),
        errors: ['NOT_FOUND', 'CONFLICT', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        handler: async ({ principal, params }) => ({ data: await deleted.restore(principal, params.secretId) }),
      }),
    'POST /api/v1/reveal': () =>
      defineRoute({
        operationId: 'revealSecretByPath',
        reveals: true,
        summary: 'Reveal a secret by its path',
        description:
          '`path` is `<projectSlug>/<envSlug>/<key>`. Audited, rate limited and resolving references (or not, with `?raw=true`) like the reveal by id.',
        response: revealByPathResult(),
        errors: ['NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
        access: 'workspace',
        query: z.strictObject({ raw: rawQuery() }),
        body: z.strictObject({ path: z.string().check(minUnits(3), maxUnits(600)), version: z.optional(versionSchema()) }),
        prefetch: ({ workspaceId, body }) => {
          const path = (body as { path?: unknown } | undefined)?.path;
          return typeof path === 'string' && path.length <= 600 && SECRET_PATH.test(path)
            ? service.prefetch.revealByPath(workspaceId, path)
            : [];
        },
        handler: async ({ principal, body, query, prefetched }) => ({
          data: await service.revealByPath(principal, body.path, body.version, prefetched, query.raw),
        }),
      }),
    'GET /api/v1/secrets/{secretId}': () =>
      defineRoute({
        operationId: 'getSecret',
        summary: 'Get a secret by id',
        description:
          'The list item plus its project and environment ids, its path, its ARN in the AWS API, the description and tags the AWS API sets, its rotation (null when none), `references` (the paths its current value references, [] when none) and `referencedBy` (the ids of the secrets whose current value references it, at most 100). Needs `read`. Never a value.',
        response: secretDetail(),
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: secretParams(),
        prefetch: secretPrefetch,
        handler: async ({ principal, params, prefetched }) => ({ data: await service.read(principal, params.secretId, prefetched) }),
      }),
    'GET /api/v1/secrets/{secretId}/versions': () =>
      defineRoute({
        operationId: 'listSecretVersions',
        summary: "List a secret's versions",
        description:
          'Newest first: who wrote each version when, which version a rollback restored, its `versionId` (as the AWS API names it) and its staging labels (`stages`). Never a value.',
        response: z.array(versionAnswer()),
        paged: true,
        errors: ['NOT_FOUND'],
        access: 'workspace',
        params: secretParams(),
        query: pageQuerySchema(),
        prefetch: secretPrefetch,
        handler: async ({ principal, params, query, prefetched }) =>
          listOutput(query.limit, await service.versions(principal, params.secretId, query, prefetched)),
      }),
    'POST /api/v1/secrets/{secretId}/rollback': () =>
      defineRoute({
        operationId: 'rollbackSecret',
        idempotent: true,
        summary: "Write an earlier version's value as the next version",
        description:
          'A write, not a reveal: the value never leaves. `If-Match` as for a write. Audited as `secret.rotate` with `rolledBackFrom`; fires `service.secret.rotate`.',
        response: secretWriteResult(),
        errors: ['NOT_FOUND', 'CONFLICT', 'REVIEW_REQUIRED'],
        access: 'workspace',
        params: secretParams(),
        body: z.strictObject({ version: versionSchema() }),
        headers: ifMatchSchema(),
        prefetch: (raw) => {
          const version = rawVersion((raw.body as { version?: unknown } | undefined)?.version);
          return raw.params.secretId && isId('secret', raw.params.secretId)
            ? service.prefetch.byId(raw.workspaceId, raw.params.secretId, version)
            : [];
        },
        handler: async ({ principal, params, body, headers, prefetched }) => ({
          data: await service.rollback(principal, params.secretId, body.version, { ifMatch: headers['if-match'], prefetched }),
        }),
      }),
    'POST /api/v1/environments/{envId}/secrets/reveal': () =>
      defineRoute({
        operationId: 'revealEnvironment',
        reveals: true,
        summary: 'Load an environment: every current value (or the listed keys), a page at a time',
        description: [
          'Sorted by key A→Z; `keys` (1 to 100 distinct) narrows it, and a listed key that does not exist is simply absent.',
          'A page ends early before its values pass 4 MiB; follow `meta.page.nextCursor`. Each secret in the answer is one',
          '`secret.reveal` audit entry (`bulk: true`, durable before any value leaves) and one `service.secret.reveal` event;',
          'the page counts as one reveal against the per-credential and per-workspace limits. A binary value is base64-encoded,',
          'with `encoding: "base64"`; a secret without a value yet (version 0) is left out. Values\' references are resolved as',
          'a reveal resolves them, each target revealed audited as its own `secret.reveal` with `metadata.via`; a value whose',
          'references cannot be resolved refuses the whole page: CONFLICT with `error.details` for every failing value, no value. `?raw=true` answers every value as written.',
        ].join(' '),
        response: z.array(environmentValueAnswer()),
        paged: true,
        errors: ['NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
        access: 'workspace',
        params: envParams(),
        // Pages of at most 100 secrets (decisions.md), 100 by default; `raw` as on the single reveals.
        query: z.extend(pageQueryOf(100, 100), { raw: rawQuery() }),
        body: z.optional(
          z.strictObject({
            keys: z.optional(
              z.array(secretKeySchema()).check(
                z.minLength(1),
                z.maxLength(100),
                z.refine((keys) => new Set(keys).size === keys.length, { error: 'must not repeat a key' }),
              ),
            ),
          }),
        ),
        prefetch: ({ workspaceId, params }) =>
          params.envId && isId('environment', params.envId) ? service.prefetch.environment(workspaceId, params.envId) : [],
        handler: async ({ principal, params, query, body, prefetched }) => {
          const { limit, cursor, raw } = query;
          return listOutput(
            limit,
            await service.revealEnvironment(principal, params.envId, { keys: body?.keys }, { limit, cursor }, prefetched, raw),
          );
        },
      }),
    'GET /api/v1/search/secrets': () =>
      defineRoute({
        operationId: 'searchSecrets',
        summary: "Search the workspace's secrets by key",
        description: '`q` is a case-insensitive substring of the key; without it, every secret. Newest first. Never a value.',
        response: z.array(secretSearchItem()),
        paged: true,
        access: 'workspace',
        query: z.extend(pageQuerySchema(), { q: z.optional(z.string().check(minUnits(1), maxUnits(256))) }),
        handler: async ({ principal, query }) => {
          const page = await service.search(principal, query.q, query);
          return listOutput(query.limit, page);
        },
      }),
  });
}
