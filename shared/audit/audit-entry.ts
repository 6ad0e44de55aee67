import { OPERATOR_ACTOR, SYSTEM_ACTOR, type AuditAction } from './audit-actions.ts';
import type { Principal } from '../platform/principal.ts';
import { iso } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import { requestInterface } from '../platform/request-interface.ts';

/** An audit entry as api.md section 2 shows it. */
export interface AuditEntry {
  id: string;
  action: AuditAction;
  actorSub: string;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Stored with the entry for the webhook fan-out (the event's `account`); never part of the API's entry. */
  accountId?: string;
}

/**
 * An audit entry by `principal`; metadata always names the credential kind (and the interface, for an entry made
 * through the AWS API, and what the principal adds to all of its entries: a sync's `syncId`), and never carries a value.
 */
export function auditEntry(
  principal: Pick<Principal, 'actorSub' | 'kind' | 'accountId' | 'auditMetadata'>,
  action: AuditAction,
  target: string,
  metadata: Record<string, unknown>,
  now: number,
): AuditEntry {
  const through = requestInterface();
  return {
    id: newId('audit', now),
    action,
    actorSub: principal.actorSub,
    target,
    metadata: { ...metadata, ...principal.auditMetadata, credentialKind: principal.kind, ...(through && { interface: through }) },
    createdAt: iso(now),
    accountId: principal.accountId,
  };
}

/**
 * An audit entry with no principal behind it: the service acting on its own (the worker's automatic switch-off of
 * a failing endpoint, actorSub `system`) or an operator through the admin CLI (`operator`, with metadata naming
 * who). No credential kind. `accountId` is the workspace's, so the entry's event reaches its endpoints.
 */
export function systemAuditEntry(
  accountId: string,
  action: AuditAction,
  target: string,
  metadata: Record<string, unknown>,
  now: number,
  actorSub: typeof SYSTEM_ACTOR | typeof OPERATOR_ACTOR = SYSTEM_ACTOR,
): AuditEntry {
  return { id: newId('audit', now), action, actorSub, target, metadata, createdAt: iso(now), accountId };
}
