/**
 * The audit vocabulary and entry builders, as the services use them. They live below the services
 * (`shared/audit-actions.ts`, `shared/audit-entry.ts`) so the store and the webhook domain share them too.
 */
export { AUDIT_ACTIONS, type AuditAction } from '../audit-actions.ts';
export { auditEntry } from '../audit-entry.ts';
