import * as z from 'zod/mini';
import { auditEntryAnswer } from '../../shared/audit/audit-answers.ts';
import { maxUnits, minUnits, pageQuerySchema, timestampSchema } from '../../shared/platform/http/schemas.ts';
import { defineRoute, lazyRoutes, listOutput, type RouteDefinition } from '../../shared/platform/http/route.ts';
import { once } from '../../shared/platform/http/once.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { AUDIT_ACTIONS } from '../../shared/audit/index.ts';
import type { AuditService } from '../../shared/audit/audit-wiring.ts';
import { auditDigestAnswer, auditPublicKeyAnswer } from '../../shared/audit-digests/digest-answers.ts';
import type { DigestReads } from '../../shared/audit-digests/digest-read-wiring.ts';

type RouteKey = (typeof ROUTE_GROUPS)['audit'][number];

/** A time range's `until` is not before its `since` (either end optional), named on `until`. */
const untilNotBeforeSince = () =>
  z.refine<{ since?: number | undefined; until?: number | undefined }>(
    (q) => q.since === undefined || q.until === undefined || q.since <= q.until,
    {
      error: 'must not be before since',
      path: ['until'],
    },
  );

/** The ends of a time range, both optional, ISO 8601. */
const timeRange = () => ({ since: z.optional(timestampSchema()), until: z.optional(timestampSchema()) });

const auditQuery = once(() =>
  z
    .extend(pageQuerySchema(), {
      action: z.optional(z.enum(AUDIT_ACTIONS)),
      target: z.optional(z.string().check(minUnits(1), maxUnits(64))),
      actorSub: z.optional(z.string().check(minUnits(1), maxUnits(256))),
      ...timeRange(),
    })
    .check(untilNotBeforeSince()),
);

/** The period a digest list covers: both ends optional, ISO 8601, `until` not before `since`. */
const digestQuery = once(() => z.extend(pageQuerySchema(), timeRange()).check(untilNotBeforeSince()));

/**
 * The audit route group: the workspace's audit log, newest first, with filters; its signed digests, oldest first;
 * and the key that verifies them (decisions.md v1.4, "Audit streams and tamper evidence").
 */
export function makeAuditRoutes(service: AuditService, digests: DigestReads): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'GET /api/v1/audit/digests': () =>
      defineRoute({
        operationId: 'listAuditDigests',
        summary: "List the audit log's signed digests",
        description:
          'One digest per period with entries (an hour by default), oldest first: the SHA-256 of its entries as canonical JSON lines in id order, chained to the previous digest, signed with ECDSA P-256. `since` and `until` bound the periods by their start.',
        response: z.array(auditDigestAnswer()),
        paged: true,
        access: 'admin',
        query: digestQuery(),
        handler: async ({ principal, query }) => {
          const { limit, cursor, since, until } = query;
          return listOutput(limit, await digests.listDigests(principal, { limit, cursor }, { since, until }));
        },
      }),
    'GET /api/v1/audit/public-key': () =>
      defineRoute({
        operationId: 'getAuditPublicKey',
        summary: "The key that verifies the audit log's digests",
        description:
          'PEM (SubjectPublicKeyInfo) of the ECDSA P-256 key the digests are signed with: `secrets audit verify` needs nothing else.',
        response: auditPublicKeyAnswer(),
        access: 'workspace',
        handler: async ({ principal }) => ({ data: await digests.publicKey(principal) }),
      }),
    'GET /api/v1/audit': () =>
      defineRoute({
        operationId: 'listAuditEntries',
        summary: "List the workspace's audit log",
        description: 'Newest first, with optional filters.',
        response: z.array(auditEntryAnswer()),
        paged: true,
        access: 'admin',
        query: auditQuery(),
        handler: async ({ principal, query }) => {
          const { limit, cursor, ...filter } = query;
          const page = await service.list(principal, { limit, cursor }, filter);
          return listOutput(limit, page);
        },
      }),
  });
}
