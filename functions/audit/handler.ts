import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { auditServiceOf } from '../../shared/audit/audit-wiring.ts';
import { digestReadsOf } from '../../shared/audit-digests/digest-read-wiring.ts';
import { makeAuditRoutes } from './routes.ts';

const { db, pager, authenticate, idempotency } = apiRuntime();
const digests = digestReadsOf({ db, pager, env: process.env });

/** Lambda entry of the audit route group. */
export const handler = makeRouteGroupHandler(makeAuditRoutes(auditServiceOf({ pager }), digests), { authenticate, idempotency });
