import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { auditServiceOf } from '../../shared/audit/audit-wiring.ts';
import { makeAuditRoutes } from './routes.ts';

const { pager, authenticate, idempotency } = apiRuntime();

/** Lambda entry of the audit route group. */
export const handler = makeRouteGroupHandler(makeAuditRoutes(auditServiceOf({ pager })), { authenticate, idempotency });
