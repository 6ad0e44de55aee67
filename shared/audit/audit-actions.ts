/**
 * The vocabulary of the audit log: every action of decisions.md. A leaf module (it imports nothing), so the store
 * can type its entries with it and the webhook domain can map actions to events without importing the services.
 */
export const AUDIT_ACTIONS = [
  'project.create',
  'environment.create',
  'secret.create',
  'secret.rotate',
  'secret.reveal',
  'secret.delete',
  // A deleted secret put back whole within its recovery window (decisions.md v1.2).
  'secret.restore',
  // A secret's description or tags changed through the AWS API (decisions.md v1.3): metadata names what, never a value.
  'secret.tag',
  // Staging labels changed without a new current version (decisions.md v1.3, "Rotation"): a version written without
  // AWSCURRENT, or a label other than AWSCURRENT moved. No event: consumers still read the same current value.
  'secret.stage',
  // Rotation (decisions.md v1.3): its configuration changed, and how each rotation ended.
  'secret.rotation_configure',
  'secret.rotation_failed',
  'secret.rotation_succeeded',
  // A rotation started by a caller (decisions.md v1.4): POST …/rotate or RotateSecret that rotates now; metadata
  // names no value. A scheduled start is audited by its outcome's `startedBy: "schedule"` alone.
  'secret.rotation_start',
  // An AWS write repeated a ClientRequestToken that names an existing version (decisions.md v1.4, Hardening):
  // `matched` true, false, or null when the caller may not compare; counted against the reveal rate limit.
  'secret.write_repeated',
  // Change requests (decisions.md v1.4): opened, reviewed (metadata `decision`), merged (each version it wrote is
  // audited as its write, with metadata.changeRequestId), closed. Metadata names keys, never a proposed value.
  'change_request.open',
  'change_request.review',
  'change_request.merge',
  'change_request.close',
  // Syncs (decisions.md v1.4): made, changed (by an admin, or by the service when a sync becomes failing or ok again:
  // metadata `status`, the source of service.sync.failed|recovered), deleted. Never a token.
  'sync.create',
  'sync.update',
  'sync.delete',
  // Audit streams (decisions.md v1.4): made, changed (metadata names the changed fields, never a credential), deleted.
  'audit_stream.create',
  'audit_stream.update',
  'audit_stream.delete',
  'audit_stream.test',
  'access_key.create',
  'access_key.revoke',
  'access_key.update',
  // A workload's login with AWS IAM or OIDC (decisions.md v1.2), good or refused; actor the key's mid_.
  'access_key.login',
  'access_key.login_denied',
  // A credential refused an action on a secret it may see (decisions.md v1.2), at most one entry a minute per credential, action and secret.
  'access.denied',
  // An environment's review policy set or removed by an admin (decisions.md v1.4, "Change requests"); no event.
  'review_policy.set',
  'review_policy.delete',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.delete',
  'webhook_endpoint.disabled',
  'webhook_delivery.retry',
  // Webhook operations (decisions.md v1.2): a service.ping sent to one endpoint, failed deliveries queued again, and
  // a new signing secret (the old one kept for an overlap); each names the endpoint as its target.
  'webhook_endpoint.test',
  'webhook_endpoint.recover',
  'webhook_endpoint.secret_rotate',
  // Operator actions of the admin CLI (decisions.md, Hardening), in the workspace's own log.
  'api_key.create',
  'api_key.revoke',
  'workspace.allowlist_add',
  'workspace.allowlist_remove',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The actorSub of an entry the service writes on its own behalf (no principal acted: an automatic switch-off). */
export const SYSTEM_ACTOR = 'system';

/** The actorSub of an operator's action through the admin CLI; its metadata names the operator. */
export const OPERATOR_ACTOR = 'operator';
