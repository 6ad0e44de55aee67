import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pick } from '../platform/store/items.ts';

/**
 * An access key as stored (decisions.md's record, its rules and how its workload proves itself) and what its token
 * items and its workspace's item carry of it. No reads or writes here: those are access-key-store.ts's.
 */

/** A permission rule as stored: shared/access/access-policy.ts's rule, which the store keeps and never interprets. */
export interface StoredRule {
  effect: 'allow' | 'deny';
  projects: string[];
  environments: string[];
  keys: string[];
  actions: string[];
}

/** How a key's workload proves itself: its one long-lived token, a login with AWS IAM or OIDC, or an AWS key pair. */
export type StoredAuth =
  | { type: 'token' }
  | { type: 'aws_iam'; principalArns: string[] }
  /** AWS Signature Version 4 with a key pair of its own (the AWS API adapter): the secret half is on its token item, sealed. */
  | { type: 'aws_sigv4'; awsAccessKeyId: string }
  | { type: 'oidc'; issuer: string; audience: string; subject: string; claims?: Record<string, string> | undefined };

/** `auth` as a create asks for it: an AWS key pair is made by the service, so its request names only the type. */
export type AuthRequest = Exclude<StoredAuth, { type: 'aws_sigv4' }> | { type: 'aws_sigv4' };

/** The stored access key record (decisions.md fields, less the derived `status`). */
export interface AccessKeyItem {
  id: string;
  name: string;
  identityId: string;
  /** The start of its one token; null for a key whose tokens come from logins. */
  tokenPrefix: string | null;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** Its rules, defaults filled in; null for a key made before permissions existed (it has the default rules). */
  permissions: StoredRule[] | null;
  /** Where its tokens may be used from; empty: anywhere. */
  allowedCidrs: string[];
  /** How its workload proves itself; `{"type":"token"}` for a key made before logins existed. */
  auth: StoredAuth;
  /** The life of each login's token in seconds; null for a `token` key. */
  tokenTtlSeconds: number | null;
}

/** What `PATCH` may change of a key. */
export type AccessKeyChanges = Partial<Pick<AccessKeyItem, 'name' | 'permissions' | 'allowedCidrs'>>;

/**
 * The rules as a token item carries them: their JSON text gzipped (every request of the key reads the item, strongly
 * consistent at one read unit per 4 KB, and 50 rules of long pattern lists are tens of KB of text that compress
 * tenfold), and a digest of the text: what the compiled policy is cached by, so a request compares 22 characters and
 * inflates nothing unless the container has not compiled these rules yet.
 */
export function tokenRules(permissions: readonly StoredRule[]): { rules: Uint8Array; rulesId: string } {
  const text = JSON.stringify(permissions);
  return { rules: gzipSync(text), rulesId: createHash('sha256').update(text).digest('base64url').slice(0, 22) };
}

/** What a key's token items carry of its record: its rules (absent: the default rules) and its CIDRs. */
export const tokenScope = (record: Pick<AccessKeyItem, 'permissions' | 'allowedCidrs'>) => ({
  ...(record.permissions && tokenRules(record.permissions)),
  allowedCidrs: record.allowedCidrs,
});

/**
 * What a change of a key that logs in writes on its workspace's item, which every authentication reads anyway: the
 * key's state in attribute `lk_<ak>` (its revision, or minus the epoch second after which none of its tokens can be
 * alive when it is revoked), and the removal of revoked keys' entries that have run out (`prune`, attribute names).
 * A login token carries the revision it was issued at; authentication refuses one of a revoked key or of an older
 * revision, so a change reaches every live token on its next request even before the tokens themselves are updated.
 */
export interface LoginKeyState {
  accessKeyId: string;
  value: number;
  prune: readonly string[];
}

/** A PATCH's revision: the one read, the next one when the scope changes, and the workspace's state of a login key. */
export interface RevisionChange {
  read: number | undefined;
  next?: number | undefined;
  loginState?: LoginKeyState | undefined;
}

/** The workspace item's attribute that holds a login key's state. */
export const loginKeyAttribute = (accessKeyId: string) => `lk_${accessKeyId}`;

/** Unrevoked access keys a workspace may hold, so a stolen key cannot multiply the per-credential reveal limit. */
export const MAX_ACCESS_KEYS = 100;

const FIELDS: readonly (keyof AccessKeyItem)[] = [
  'id',
  'name',
  'identityId',
  'tokenPrefix',
  'createdAt',
  'createdBy',
  'expiresAt',
  'revokedAt',
  'lastUsedAt',
  'permissions',
  'allowedCidrs',
  'auth',
  'tokenTtlSeconds',
];

/** The record of a stored item, with the defaults of fields that keys made earlier lack. */
export function toAccessKey(item: Record<string, unknown> | undefined): AccessKeyItem | undefined {
  const record = pick<AccessKeyItem>(item, FIELDS);
  return (
    record && {
      ...record,
      allowedCidrs: record.allowedCidrs ?? [],
      auth: record.auth ?? { type: 'token' },
      tokenTtlSeconds: record.tokenTtlSeconds ?? null,
    }
  );
}

/** Whether a key's workloads log in for short-lived tokens (AWS IAM or OIDC) rather than hold one credential. */
export const logsIn = (auth: StoredAuth | AuthRequest): boolean => auth.type === 'aws_iam' || auth.type === 'oidc';
