import type { Pager } from '../platform/store/pager.ts';
import { makeAuditService } from './audit-service.ts';
import { makeAuditStore } from './audit-store.ts';

export type { AuditService } from './audit-service.ts';

/** The audit route group's service over the log's reads, as its function builds it once per container. */
export function auditServiceOf(deps: { pager: Pager }) {
  return makeAuditService({ store: makeAuditStore(deps.pager) });
}
