import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { admin, call } from '../../support/api.ts';

describe('admin CLI against the local stack', () => {
  it('creates a workspace and key, manages the allowlist and revokes keys', async () => {
    const created = await admin('workspace', 'create', '--name', 'Acme', '--allowlist');
    expect(created.workspaceId).toMatch(/^ws_/);
    expect(created.apiKey).toMatch(/^sk_live_/);
    expect((await call('GET', '/api/v1/projects', { token: created.apiKey })).status).toBe(200);
    expect((await admin('allowlist', 'list')).workspaceIds).toContain(created.workspaceId);

    expect(await admin('mac-key', 'ensure')).toEqual({ macKey: 'present' });
    expect((await call('GET', '/api/v1/projects', { token: created.apiKey })).status).toBe(200);
    await admin('allowlist', 'remove', '--workspace', created.workspaceId);
    expect((await call('GET', '/api/v1/projects', { token: created.apiKey })).body.error.code).toBe('WORKSPACE_NOT_ALLOWLISTED');
    expect((await admin('allowlist', 'list')).workspaceIds).not.toContain(created.workspaceId);
    await admin('allowlist', 'add', '--workspace', created.workspaceId);

    const second = await admin('api-key', 'create', '--workspace', created.workspaceId, '--name', 'ci');
    expect((await call('GET', '/api/v1/projects', { token: second.apiKey })).status).toBe(200);
    expect(await admin('api-key', 'revoke', '--workspace', created.workspaceId, '--key', second.apiKeyId)).toEqual({
      id: second.apiKeyId,
      revoked: true,
    });
    expect((await call('GET', '/api/v1/projects', { token: second.apiKey })).status).toBe(401);
    expect((await call('GET', '/api/v1/projects', { token: created.apiKey })).status).toBe(200);
  });

  it("audits the operator's actions in the workspace's own log, naming the OS user against the local stack", async () => {
    // Prepare
    const created = await admin('workspace', 'create', '--name', 'Audited', '--allowlist');
    // Act
    const key = await admin('api-key', 'create', '--workspace', created.workspaceId, '--name', 'ci');
    await admin('api-key', 'revoke', '--workspace', created.workspaceId, '--key', key.apiKeyId);
    await admin('api-key', 'revoke', '--workspace', created.workspaceId, '--key', key.apiKeyId);
    await admin('allowlist', 'remove', '--workspace', created.workspaceId);
    await admin('allowlist', 'add', '--workspace', created.workspaceId);
    // Assess: newest first; the repeated revoke wrote nothing
    const log = (await call('GET', '/api/v1/audit', { token: created.apiKey })).body.data as {
      action: string;
      actorSub: string;
      target: string;
      metadata: Record<string, unknown>;
    }[];
    expect(log.map((entry) => [entry.action, entry.target])).toEqual([
      ['workspace.allowlist_add', created.workspaceId],
      ['workspace.allowlist_remove', created.workspaceId],
      ['api_key.revoke', key.apiKeyId],
      ['api_key.create', key.apiKeyId],
    ]);
    for (const entry of log) {
      expect(entry.actorSub).toBe('operator');
      expect(entry.metadata.operator).toBe(`os-user:${userInfo().username}`);
    }
    expect(JSON.stringify(log)).not.toContain(key.apiKey);
  });

  it('exits 2 with the usage for a bad command line, and 1 for an unknown key', async () => {
    await expect(admin('workspace', 'create')).rejects.toMatchObject({ code: 2 });
    await expect(admin('frobnicate')).rejects.toMatchObject({ code: 2 });
    const created = await admin('workspace', 'create', '--name', 'Other');
    await expect(
      admin('api-key', 'revoke', '--workspace', created.workspaceId, '--key', 'key_01JZZZZZZZZZZZZZZZZZZZZZZZ'),
    ).rejects.toMatchObject({
      code: 1,
    });
  });
});
