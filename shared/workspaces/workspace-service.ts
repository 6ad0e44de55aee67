import { type AuditAction, OPERATOR_ACTOR, systemAuditEntry } from '../audit/index.ts';
import { hashToken, issueToken, tokenPrefix } from '../access/index.ts';
import type { ServiceMacs } from '../platform/crypto/mac-key.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { NotFoundError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { WorkspaceStore } from './workspace-store.ts';

export type WorkspaceAdminStore = Pick<
  WorkspaceStore,
  'putWorkspace' | 'getWorkspace' | 'setAllowlisted' | 'listAllowlisted' | 'putApiKey' | 'getApiKey' | 'revokeApiKey'
>;

/**
 * Operator actions on workspaces ("workspace settings" live outside the API): creation, the private-beta
 * allowlist and workspace API keys. Used by the admin CLI and the local stack's bootstrap. Each change is audited
 * in the workspace's own log with actorSub `operator` and metadata naming `operator` (the AWS caller identity of a
 * deployed table, or the OS user against the local stack).
 */
export function makeWorkspaceAdminService(deps: {
  store: WorkspaceAdminStore;
  clock: Clock;
  operator: string;
  macs: () => Promise<ServiceMacs>;
}) {
  const { store, clock, operator } = deps;
  /** The workspace (NOT_FOUND if absent) and an operator's audit entry builder for it. */
  const audited = async (workspaceId: string) => {
    const workspace = await store.getWorkspace(workspaceId);
    if (!workspace) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
    return (action: AuditAction, target: string, metadata: Record<string, unknown>, now: number) =>
      systemAuditEntry(workspace.accountId, action, target, { ...metadata, operator }, now, OPERATOR_ACTOR);
  };
  /** A new API key, with its `api_key.create` entry when `entry` is given. */
  const issueApiKey = async (workspaceId: string, name: string, entry: Awaited<ReturnType<typeof audited>> | undefined) => {
    const now = clock.now();
    const apiKey = issueToken(await deps.macs(), 'apiKey', workspaceId);
    const id = newId('apiKey', now);
    const record = {
      id,
      name,
      tokenPrefix: tokenPrefix(apiKey),
      tokenHash: hashToken(apiKey),
      createdAt: iso(now),
      revokedAt: null,
      lastUsedAt: null,
    };
    await store.putApiKey(workspaceId, record, entry?.('api_key.create', id, { name, tokenPrefix: record.tokenPrefix }, now));
    return { id, apiKey, tokenPrefix: record.tokenPrefix };
  };
  const service = {
    /** A new workspace with its first API key; the plaintext key is in this answer only. */
    async createWorkspace(input: { name: string; allowlisted: boolean }) {
      const now = clock.now();
      const workspaceId = newId('workspace', now);
      await store.putWorkspace({
        id: workspaceId,
        name: input.name,
        accountId: newId('account', now),
        allowlisted: input.allowlisted,
        createdAt: iso(now),
        updatedAt: iso(now),
      });
      // The first key is part of making the workspace, which precedes its log: it is not an audited key change.
      const key = await issueApiKey(workspaceId, 'default', undefined);
      return { workspaceId, apiKeyId: key.id, apiKey: key.apiKey };
    },

    /** A workspace API key (`sk_live_…`); only its SHA-256 is stored. */
    async createApiKey(workspaceId: string, name: string) {
      return issueApiKey(workspaceId, name, await audited(workspaceId));
    },

    /** Revokes at once: the next request with the key gets AUTH_REQUIRED. Idempotent. */
    async revokeApiKey(workspaceId: string, keyId: string) {
      const entry = await audited(workspaceId);
      const record = await store.getApiKey(workspaceId, keyId);
      if (!record) throw new NotFoundError(`api key ${keyId} was not found in workspace ${workspaceId}`);
      const now = clock.now();
      if (!record.revokedAt)
        await store.revokeApiKey(workspaceId, record, iso(now), entry('api_key.revoke', keyId, { name: record.name }, now));
      return { id: keyId, revoked: true };
    },

    async setAllowlisted(workspaceId: string, allowlisted: boolean) {
      const entry = await audited(workspaceId);
      const now = clock.now();
      const action = allowlisted ? 'workspace.allowlist_add' : 'workspace.allowlist_remove';
      await store.setAllowlisted(workspaceId, allowlisted, iso(now), entry(action, workspaceId, {}, now));
      return { workspaceId, allowlisted };
    },

    listAllowlisted: () => store.listAllowlisted(),
    getWorkspace: (workspaceId: string) => store.getWorkspace(workspaceId),
  };
  return service;
}
