import type { Principal } from '../platform/principal.ts';
import { assertMayReadAudit } from '../access/index.ts';
import type { AuditFilter, AuditStore } from './audit-store.ts';
import type { PageRequest } from '../platform/store/query.ts';

export type AuditServiceStore = Pick<AuditStore, 'listAudit'>;

/** Reading the workspace's audit log. Entries are written by the services whose changes they record, never here. */
export function makeAuditService({ store }: { store: AuditServiceStore }) {
  return {
    /** The caller's workspace's entries, newest first, narrowed by `filter`. */
    list(principal: Principal, page: PageRequest, filter: AuditFilter) {
      assertMayReadAudit(principal);
      return store.listAudit(principal.workspaceId, page, filter);
    },
  };
}

export type AuditService = ReturnType<typeof makeAuditService>;
