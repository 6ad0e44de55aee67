import { describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';

describe('workspace API keys', () => {
  it('record lastUsedAt like access keys, at most once a minute', async () => {
    // Prepare
    const ws = await newWorkspace();
    const { store } = localStore();
    // Act
    await call('GET', '/api/v1/projects', { token: ws.apiKey });
    const first = (await store.getApiKey(ws.workspaceId, ws.apiKeyId))!.lastUsedAt;
    await call('GET', '/api/v1/projects', { token: ws.apiKey });
    // Assess
    expect(first).not.toBeNull();
    expect((await store.getApiKey(ws.workspaceId, ws.apiKeyId))!.lastUsedAt).toBe(first);
  });
});
