/**
 * Who is calling and what they may do: the vocabulary the platform's request chain carries to every feature. The
 * access feature (shared/access/) establishes a principal and compiles its policy; this file holds only the shapes.
 */

/** What a rule can grant or deny. `reveal`, `write` and `delete` imply `read` of what the same allow rule matches. */
export type PolicyAction = 'read' | 'reveal' | 'write' | 'delete';

/** A rule as stored and shown, with every default filled in. */
export interface PermissionRule {
  effect: 'allow' | 'deny';
  projects: string[];
  environments: string[];
  keys: string[];
  actions: PolicyAction[];
}

/** A secret, by the slugs of its project and environment and its key. */
export interface PolicyTarget {
  project: string;
  environment: string;
  key: string;
}

/** A credential's compiled rules. */
export interface Policy {
  /** Whether the action on the secret is allowed: an allow rule grants it, and no deny rule takes it away. */
  allows(action: PolicyAction, target: PolicyTarget): boolean;
  /** Whether the project exists for this credential at all (else NOT_FOUND, and absent from lists). */
  projectVisible(project: string): boolean;
  /** Whether the environment exists for this credential at all. */
  environmentVisible(project: string, environment: string): boolean;
  /** Whether any allow rule could grant `action` on some key of the environment (the bulk reveal's FORBIDDEN). */
  mayAnywhere(action: PolicyAction, project: string, environment: string): boolean;
  /**
   * Whether it sees every project, environment and secret (an allow rule over all of them, and no deny rule): its
   * lists need no filtering and no extra read, so an unscoped credential pays nothing for permissions.
   */
  readonly seesEverything: boolean;
  /**
   * Whether it may reveal every secret (an allow rule with `reveal` over every project, environment and key, and no
   * deny rule): the bulk reveal's only reason to skip its per-key filter. `seesEverything` says nothing of reveal: a
   * key with `read` everywhere and `reveal` on one key sees everything and reveals one value.
   */
  readonly revealsEverything: boolean;
  /**
   * Where everything it may read lies, when its allow rules name projects and environments by literal slugs only:
   * each project with the environments named (null: every environment of it). A search can then read those
   * environments instead of the whole workspace. Undefined when an allow rule names a pattern.
   */
  readonly literalScope: ReadonlyMap<string, ReadonlySet<string> | null> | undefined;
  /** The rules, defaults filled in, as the record shows them. */
  readonly rules: readonly PermissionRule[];
}

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
  /** The credential's kind; undefined only for the service acting on its own (its audit entries name no kind). */
  kind: CredentialKind | undefined;
  /** `key_…` for an API key, `usr_…` for a person, `mid_…` for a machine identity. */
  actorSub: string;
  /** The credential itself (`key_…`, `usr_…` or `ak_…`): what per-credential rate limits count. */
  credentialId: string;
  /** What it may do: its compiled rules and whether it administers the workspace (shared/access/permissions.ts). */
  authority: Authority;
  /**
   * The workspace's environments with a review policy, as its item said when this credential was read with it:
   * a write by secret id reads its environment only when it is one of them (shared/secrets/review-gate.ts).
   */
  reviewedEnvironments?: ReadonlySet<string> | undefined;
  /**
   * What every audit entry of this principal names besides its own metadata: a sync's pushes reveal as the service
   * with `{syncId}` (decisions.md v1.4, "Syncs"), so the entries of the targets its references reveal carry it too.
   */
  auditMetadata?: Readonly<Record<string, string>> | undefined;
}
