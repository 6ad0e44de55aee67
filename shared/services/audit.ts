import type { Principal } from '../auth/principal.ts';
import { iso } from '../clock.ts';
import { newId } from '../ids.ts';
import type { AuditEntry } from '../store/audit.ts';

/** Every audit action of decisions.md. */
export const AUDIT_ACTIONS = [
  'project.create',
  'environment.create',
  'secret.create',
  'secret.rotate',
  'secret.reveal',
  'secret.delete',
  'access_key.create',
  'access_key.revoke',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.delete',
  'webhook_endpoint.disabled',
  'webhook_delivery.retry',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** An audit entry by `principal`; metadata always names the credential kind, and never carries a value. */
export function auditEntry(
  principal: Principal,
  action: AuditAction,
  target: string,
  metadata: Record<string, unknown>,
  now: number,
): AuditEntry {
  return {
    id: newId('audit', now),
    action,
    actorSub: principal.actorSub,
    target,
    metadata: { ...metadata, credentialKind: principal.kind },
    createdAt: iso(now),
    accountId: principal.accountId,
  };
}
