import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeAuditService } from '../../shared/services/audit.ts';
import { makeAuditRoutes } from './routes.ts';
import { makeAuditStore } from '../../shared/store/audit.ts';

const { pager, authenticate, idempotency } = apiRuntime();
const store = makeAuditStore(pager);

/** Lambda entry of the audit route group. */
export const handler = makeRouteGroupHandler(makeAuditRoutes(makeAuditService({ store })), { authenticate, idempotency });
