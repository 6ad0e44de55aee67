/**
 * What other features use of the audit log: an entry of a principal's or the system's action, and the write that
 * puts it in the same transaction as the change it records, and the log's store. Reading the log is the audit
 * route's: its function builds the service through audit-wiring.ts (the service asks access's refusals, which write
 * audit entries: exported here, it would make an import cycle). Entry modules besides this file (architecture.test.ts
 * reads these lines, as a package's `exports` map):
 * @entry audit-answers.ts what the audit route answers, for it and the API description
 * @entry audit-wiring.ts the audit route's service as its function builds it (a cycle through access's index.ts, here)
 */
export { AUDIT_ACTIONS, OPERATOR_ACTOR, SYSTEM_ACTOR, type AuditAction } from './audit-actions.ts';
export { auditEntry, systemAuditEntry } from './audit-entry.ts';
export { auditPut, makeAuditStore, putAuditEntries, type AuditEntry, type AuditStore } from './audit-store.ts';
export { entriesOfItem, type AuditWrite, type PackedFields } from './audit-packing.ts';
export { insertedAudits, type StreamedAuditEntry } from './audit-stream.ts';
