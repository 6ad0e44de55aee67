import type { EncryptionContext } from './key-provider.ts';

/**
 * The one byte form of a context that goes into AES-GCM as AAD. Keys are sorted so that the order in which a caller
 * built the object does not matter, and JSON quoting makes the form unambiguous (`{a: 'b,c'}` never equals
 * `{a: 'b', c: ''}`), which a plain `k=v,` join would not guarantee.
 */
export function canonicalContext(context: EncryptionContext): Buffer {
  const entries = Object.keys(context)
    .sort()
    .map((key) => {
      const value = context[key];
      // The type says string, but a number here would silently change the bytes between writer and reader.
      if (typeof value !== 'string') throw new TypeError(`Encryption context value "${key}" must be a string`);
      return [key, value];
    });
  return Buffer.from(JSON.stringify(entries), 'utf8');
}

/**
 * The keys of a secret value's context. The IAM grants of the secrets function (`lib/access.ts`) condition KMS on
 * exactly these keys, so the list and `secretContext` below live side by side and the compiler keeps them equal.
 */
export const SECRET_VALUE_CONTEXT = ['workspaceId', 'secretId', 'version'] as const;

/** The keys of a change request's proposed value's context, granted to the change-requests function (`lib/`). */
export const PROPOSED_VALUE_CONTEXT = ['workspaceId', 'changeRequestId', 'key'] as const;

/** The keys of a webhook signing secret's context, granted to the webhook functions (`lib/access.ts`). */
export const SIGNING_SECRET_CONTEXT = ['workspaceId', 'endpointId'] as const;

/** A context with exactly the listed keys: a missing or extra key in a builder below is a type error. */
type ContextOf<Keys extends readonly string[]> = Record<Keys[number], string>;

/** Binds a value to its workspace, secret and version: KMS encryption context and GCM additional data alike. */
export function secretContext(workspaceId: string, secretId: string, version: number): ContextOf<typeof SECRET_VALUE_CONTEXT> {
  return { workspaceId, secretId, version: String(version) };
}

/** Binds a proposed value to its workspace, change request and key: no other sealed value unseals as it. */
export function proposedValueContext(workspaceId: string, changeRequestId: string, key: string): ContextOf<typeof PROPOSED_VALUE_CONTEXT> {
  return { workspaceId, changeRequestId, key };
}

/** Binds an endpoint's signing secret to its workspace and endpoint (KMS encryption context and GCM data). */
export function signingSecretContext(workspaceId: string, endpointId: string): ContextOf<typeof SIGNING_SECRET_CONTEXT> {
  return { workspaceId, endpointId };
}

/** The keys of a sync's sealed GitHub token's context, granted to the syncs function (seal) and the sync worker (open). */
export const SYNC_TOKEN_CONTEXT = ['workspaceId', 'syncId'] as const;

/** Binds a sync's destination token to its workspace and sync: no other sealed value unseals as it. */
export function syncTokenContext(workspaceId: string, syncId: string): ContextOf<typeof SYNC_TOKEN_CONTEXT> {
  return { workspaceId, syncId };
}

/**
 * The keys of an audit stream's sealed credentials' context (decisions.md v1.4, "Audit streams"): its signing secret,
 * header values, Splunk token or Datadog API key, each sealed apart and named by `credential`, so none unseals as
 * another's. Granted to the audit streams function (seal); the delivery will open them.
 */
export const AUDIT_STREAM_CREDENTIAL_CONTEXT = ['workspaceId', 'auditStreamId', 'credential'] as const;

/** Binds one credential of an audit stream to its workspace, stream and name. */
export function auditStreamCredentialContext(
  workspaceId: string,
  auditStreamId: string,
  credential: string,
): ContextOf<typeof AUDIT_STREAM_CREDENTIAL_CONTEXT> {
  return { workspaceId, auditStreamId, credential };
}

/** The keys of an access key's AWS secret access key's context (decisions.md, "The AWS Secrets Manager API"). */
export const AWS_KEY_CONTEXT = ['workspaceId', 'accessKeyId'] as const;

/** Binds an access key's AWS secret access key to its workspace and key (KMS encryption context and GCM data). */
export function awsKeyContext(workspaceId: string, accessKeyId: string): ContextOf<typeof AWS_KEY_CONTEXT> {
  return { workspaceId, accessKeyId };
}

/** The keys of a stored idempotent answer's context (an answer that carries a one-time token or signing secret). */
export const IDEMPOTENT_ANSWER_CONTEXT = ['workspaceId', 'idempotencyRecord'] as const;

/** Binds a stored answer to its workspace and its record (the credential and a hash of the key). */
export function idempotentAnswerContext(workspaceId: string, record: string): ContextOf<typeof IDEMPOTENT_ANSWER_CONTEXT> {
  return { workspaceId, idempotencyRecord: record };
}

/** The keys of the service MAC keys' context: one `purpose`, whose values the KMS grants name. */
export const MAC_KEY_CONTEXT = ['purpose'] as const;

/** The two sealed roots of the service MAC keys (shared/platform/crypto/mac-key.ts). */
export type MacKeyRoot = 'service' | 'token';

/**
 * The `purpose` of each root's context. The functions unseal both; the key policy lets operators (the admin CLI)
 * make both and unseal only `token` (they issue API keys, whose checksums derive from it).
 */
export const MAC_KEY_PURPOSES = { service: 'service-mac-key', token: 'token-checksum-key' } as const satisfies Record<MacKeyRoot, string>;

/** Binds a sealed MAC root to its purpose, so no other sealed blob of the service unseals as it. */
export function macKeyContext(root: MacKeyRoot): ContextOf<typeof MAC_KEY_CONTEXT> {
  return { purpose: MAC_KEY_PURPOSES[root] };
}
