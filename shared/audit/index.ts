/**
 * What other features use of the audit log: an entry of a principal's or the system's action, and the write that
 * puts it in the same transaction as the change it records. Reading the log is the audit route's (audit-service.ts).
 * Entry modules besides this file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry audit-answers.ts what the audit route answers, for it and the API description
 */
export { AUDIT_ACTIONS, OPERATOR_ACTOR, SYSTEM_ACTOR, type AuditAction } from './audit-actions.ts';
export { auditEntry, systemAuditEntry } from './audit-entry.ts';
export { auditPut, putAuditEntries, type AuditEntry } from './audit-store.ts';
