import * as z from 'zod/mini';
import { DATADOG_SITES, MAX_AUDIT_STREAMS, MAX_STREAM_HEADERS, type AuditStreamService } from '../../shared/audit-streams/index.ts';
import {
  auditStreamAnswer,
  auditStreamCreated,
  auditStreamTested,
  streamInputSchema,
  streamPatchSchema,
} from '../../shared/audit-streams/stream-wiring.ts';
import { deletedResult } from '../../shared/platform/http/answer-schemas.ts';
import { once } from '../../shared/platform/http/once.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { idSchema, pageQuerySchema } from '../../shared/platform/http/schemas.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';

type RouteKey = (typeof ROUTE_GROUPS)['audit-streams'][number];

const streamParams = once(() => z.object({ id: idSchema('auditStream') }));

const TYPES = [
  '`https` (`url` https, `headers`? of at most',
  `${MAX_STREAM_HEADERS} names to values),`,
  '`splunk-hec` (`url` https, `token`) or',
  `\`datadog\` (\`site\` one of ${DATADOG_SITES.join(', ')}; \`apiKey\`).`,
].join(' ');

/** The audit streams route group (decisions.md v1.4, "Audit streams and tamper evidence"): admins make, read, change and delete streams. */
export function makeAuditStreamRoutes(service: AuditStreamService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'POST /api/v1/audit-streams': () =>
      defineRoute({
        operationId: 'createAuditStream',
        idempotent: true,
        summary: "Stream the workspace's audit entries to a receiver",
        description: `Type: ${TYPES} A url must be https and resolve to public addresses only. Credentials (header values, token, apiKey) are sealed and never answered; an https stream's answer carries its \`whsec_\` signing secret, the only time it is shown (later reads show \`secretHint\`). At most ${MAX_AUDIT_STREAMS} streams per workspace. Audited as \`audit_stream.create\`.`,
        response: auditStreamCreated(),
        errors: ['LIMIT_EXCEEDED'],
        access: 'admin',
        status: 201,
        body: streamInputSchema(),
        handler: async ({ principal, body }) => ({ data: await service.create(principal, body) }),
      }),
    'GET /api/v1/audit-streams': () =>
      defineRoute({
        operationId: 'listAuditStreams',
        summary: "List the workspace's audit streams",
        description: 'Newest first; header names only, never a credential.',
        response: z.array(auditStreamAnswer()),
        paged: true,
        access: 'admin',
        query: pageQuerySchema(),
        handler: async ({ principal, query }) => {
          const { limit, cursor } = query;
          return listOutput(limit, await service.list(principal, { limit, cursor }));
        },
      }),
    'GET /api/v1/audit-streams/{id}': () =>
      defineRoute({
        operationId: 'getAuditStream',
        summary: 'Show an audit stream',
        description: 'Its type, url or site, header names, signing secret hint and status; never a credential.',
        response: auditStreamAnswer(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: streamParams(),
        handler: async ({ principal, params }) => ({ data: await service.get(principal, params.id) }),
      }),
    'PATCH /api/v1/audit-streams/{id}': () =>
      defineRoute({
        operationId: 'updateAuditStream',
        idempotent: true,
        summary: 'Change, disable or enable an audit stream',
        description:
          'Changes only what its type has (https: `url`, `headers`, which replace every header, null removing them; splunk-hec: `url`, `token`; datadog: `site`, `apiKey`); the type and the signing secret never change. `status: "disabled"` stops it, `status: "active"` enables it again. Audited as `audit_stream.update` (the changed fields named, never a credential).',
        response: auditStreamAnswer(),
        errors: ['NOT_FOUND', 'CONFLICT'],
        access: 'admin',
        params: streamParams(),
        body: streamPatchSchema(),
        handler: async ({ principal, params, body }) => ({ data: await service.update(principal, params.id, body) }),
      }),
    'DELETE /api/v1/audit-streams/{id}': () =>
      defineRoute({
        operationId: 'deleteAuditStream',
        idempotent: true,
        summary: 'Delete an audit stream',
        description: 'Nothing more is delivered to it. Audited as `audit_stream.delete`.',
        response: deletedResult('as'),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: streamParams(),
        handler: async ({ principal, params }) => ({ data: await service.delete(principal, params.id) }),
      }),
    'POST /api/v1/audit-streams/{id}/test': () =>
      defineRoute({
        operationId: 'testAuditStream',
        summary: "Send one entry to an audit stream's receiver now",
        description:
          "Writes the test's own `audit_stream.test` entry, sends it at once in the stream's format (signed and through the SSRF guard, with 10 s for the receiver), and answers whether the receiver took it (a 2xx), its status code and, if not, why. The stream delivers the same entry again later with the others; a receiver drops the repeat by its `id`. A disabled stream may be tested; the stream's delivery health is not changed.",
        response: auditStreamTested(),
        errors: ['NOT_FOUND'],
        access: 'admin',
        params: streamParams(),
        handler: async ({ principal, params }) => ({ data: await service.test(principal, params.id) }),
      }),
  });
}
