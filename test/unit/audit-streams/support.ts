import { roleAuthority } from '../../../shared/access/permissions.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { DeliveryResult } from '../../../shared/audit-streams/delivery/stream-health.ts';
import type { AuditStreamRecord } from '../../../shared/audit-streams/stream-records.ts';
import { makeAuditStreamService } from '../../../shared/audit-streams/stream-service.ts';
import { MAX_AUDIT_STREAMS, type StreamChanges } from '../../../shared/audit-streams/stream-store.ts';
import { ConflictError, LimitExceededError, NotFoundError } from '../../../shared/platform/errors.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { fakeCipher, fakeClock, principal } from '../support/fakes.ts';

/**
 * Fixtures of the audit streams tests: the service over an in-memory store that keeps the real store's rules (streams
 * by workspace, the cap, the revision condition).
 */

export const person = (role: 'admin' | 'developer' | 'viewer'): Principal =>
  principal({ kind: 'user', actorSub: `usr_${role}`, credentialId: `usr_${role}`, authority: roleAuthority(role) });

/** An admin of another workspace. */
export const stranger = (): Principal => principal({ workspaceId: 'ws_other', accountId: 'acc_other' });

export const HEADER_VALUE = 'Bearer hdr-SECRET-value-1';
export const SPLUNK_TOKEN = 'b0a1c2d3-SPLUNK-TOKEN-e4f5';
export const DATADOG_KEY = '0123456789abcdef0123456789abcdef';
export const HTTPS = {
  type: 'https' as const,
  url: 'https://siem.example/ingest?k=q',
  headers: { Authorization: HEADER_VALUE, 'X-Tenant': 'acme' },
};
export const SPLUNK = { type: 'splunk-hec' as const, url: 'https://splunk.example:8088/services/collector', token: SPLUNK_TOKEN };
export const DATADOG = { type: 'datadog' as const, site: 'datadoghq.eu' as const, apiKey: DATADOG_KEY };

export function auditStreams(options: { urlVerdict?: { ok: true } | { ok: false; reason: string }; testResult?: DeliveryResult } = {}) {
  const stored = new Map<string, AuditStreamRecord & { workspaceId: string }>();
  const audits: AuditEntry[] = [];
  const checkedUrls: string[] = [];
  const clock = fakeClock();
  const cipher = fakeCipher();
  /** Bumps a stream's revision between a PATCH's read and its write (another PATCH slips in). */
  const race = { bumpOnUpdate: false };
  /** The test sends asked, and whether each one's entry was audited before it. */
  const tests: { workspaceId: string; streamId: string; entryId: string; auditedBefore: boolean }[] = [];
  const own = (ws: string, id: string) => (stored.get(id)?.workspaceId === ws ? stored.get(id) : undefined);
  const store = {
    getAuditStream: async (ws: string, id: string) => {
      const found = own(ws, id);
      if (!found) return undefined;
      const { workspaceId: _ws, ...stream } = structuredClone(found);
      return stream as AuditStreamRecord;
    },
    listAuditStreamPage: async (ws: string) => ({
      items: [...stored.values()].filter((stream) => stream.workspaceId === ws).reverse(),
      nextCursor: null,
      hasMore: false,
    }),
    createAuditStream: async (ws: string, stream: AuditStreamRecord, audit: AuditEntry) => {
      if ([...stored.values()].filter((s) => s.workspaceId === ws).length >= MAX_AUDIT_STREAMS) throw new LimitExceededError('at most');
      stored.set(stream.id, { ...structuredClone(stream), workspaceId: ws });
      audits.push(audit);
    },
    updateAuditStream: async (ws: string, id: string, read: number, changes: StreamChanges & { updatedAt: string }, audit: AuditEntry) => {
      const current = own(ws, id);
      if (!current) throw new NotFoundError(`audit stream ${id} was not found`);
      if (race.bumpOnUpdate) current.revision++;
      if (current.revision !== read) throw new ConflictError(`audit stream ${id} was changed by another request`);
      const next = { ...current, ...structuredClone(changes), revision: read + 1 } as AuditStreamRecord & { workspaceId: string };
      // As the real store does: a field changed to null is removed.
      if (changes.failingSince === null) delete next.failingSince;
      stored.set(id, next);
      audits.push(audit);
    },
    deleteAuditStream: async (ws: string, id: string, audit: AuditEntry) => {
      if (!own(ws, id)) throw new NotFoundError(`audit stream ${id} was not found`);
      stored.delete(id);
      audits.push(audit);
    },
    putStreamTestAudit: async (_ws: string, audit: AuditEntry) => {
      audits.push(audit);
    },
  };
  const service = makeAuditStreamService({
    store,
    cipher,
    clock,
    checkUrl: async (url) => {
      checkedUrls.push(url);
      return options.urlVerdict ?? { ok: true };
    },
    sendTest: async (workspaceId, stream, entry) => {
      // The entry must be durable before it leaves: recorded already when the send is asked.
      tests.push({ workspaceId, streamId: stream.id, entryId: entry.id, auditedBefore: audits.some((audit) => audit.id === entry.id) });
      return options.testResult ?? { ok: true, statusCode: 204 };
    },
  });
  return { service, stored, audits, checkedUrls, cipher, clock, race, tests };
}
