import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { makeAuditService } from '../../shared/audit/audit-service.ts';
import { makeAuditRoutes } from './routes.ts';
import { makeAuditStore } from '../../shared/audit/audit-store.ts';

const { pager, authenticate, idempotency } = apiRuntime();
const store = makeAuditStore(pager);

/** Lambda entry of the audit route group. */
export const handler = makeRouteGroupHandler(makeAuditRoutes(makeAuditService({ store })), { authenticate, idempotency });
