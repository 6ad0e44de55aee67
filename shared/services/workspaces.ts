import { hashToken, issueToken, tokenPrefix } from '../auth/tokens.ts';
import { iso, type Clock } from '../clock.ts';
import { NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Store } from '../store/index.ts';

export type WorkspaceAdminStore = Pick<
  Store,
  'putWorkspace' | 'getWorkspace' | 'setAllowlisted' | 'listAllowlisted' | 'putApiKey' | 'getApiKey' | 'revokeApiKey'
>;

/**
 * Operator actions on workspaces ("workspace settings" live outside the API): creation, the private-beta
 * allowlist and workspace API keys. Used by the admin CLI and the local stack's bootstrap.
 */
export function makeWorkspaceAdminService({ store, clock }: { store: WorkspaceAdminStore; clock: Clock }) {
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
      const key = await service.createApiKey(workspaceId, 'default');
      return { workspaceId, apiKeyId: key.id, apiKey: key.apiKey };
    },

    /** A workspace API key (`sk_live_…`); only its SHA-256 is stored. */
    async createApiKey(workspaceId: string, name: string) {
      const now = clock.now();
      const apiKey = issueToken('apiKey', workspaceId);
      const id = newId('apiKey', now);
      await store.putApiKey(workspaceId, {
        id,
        name,
        tokenPrefix: tokenPrefix(apiKey),
        tokenHash: hashToken(apiKey),
        createdAt: iso(now),
        revokedAt: null,
      });
      return { id, apiKey, tokenPrefix: tokenPrefix(apiKey) };
    },

    /** Revokes at once: the next request with the key gets AUTH_REQUIRED. Idempotent. */
    async revokeApiKey(workspaceId: string, keyId: string) {
      const record = await store.getApiKey(workspaceId, keyId);
      if (!record) throw new NotFoundError(`api key ${keyId} was not found in workspace ${workspaceId}`);
      await store.revokeApiKey(workspaceId, record, iso(clock.now()));
      return { id: keyId, revoked: true };
    },

    async setAllowlisted(workspaceId: string, allowlisted: boolean) {
      await store.setAllowlisted(workspaceId, allowlisted, iso(clock.now()));
      return { workspaceId, allowlisted };
    },

    listAllowlisted: () => store.listAllowlisted(),
    getWorkspace: (workspaceId: string) => store.getWorkspace(workspaceId),
  };
  return service;
}
