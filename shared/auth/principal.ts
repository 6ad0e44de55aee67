import type { Policy } from './policy.ts';

/** What a credential may do: its compiled rules, and whether it administers the workspace (permissions.ts). */
export interface Authority {
  policy: Policy;
  admin: boolean;
}

/** The three credential kinds of api.md section 5, named as audit metadata names them. */
export type CredentialKind = 'api_key' | 'user' | 'machine';

/** Who is calling, established once per request by the authentication middleware. */
export interface Principal {
  workspaceId: string;
  /** The workspace's `acc_` account id, the `account` of webhook events. */
  accountId: string;
  kind: CredentialKind;
  /** `key_…` for an API key, `usr_…` for a person, `mid_…` for a machine identity. */
  actorSub: string;
  /** The credential itself (`key_…`, `usr_…` or `ak_…`): what per-credential rate limits count. */
  credentialId: string;
  /** What it may do: its compiled rules and whether it administers the workspace (shared/auth/permissions.ts). */
  authority: Authority;
}
