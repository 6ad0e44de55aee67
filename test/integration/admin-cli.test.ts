import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { call } from '../support/api.ts';

const run = promisify(execFile);

/** Runs `npm run admin -- …`'s script, as an operator would, against the test's local stack. */
async function admin(...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/admin.ts', ...args, '--local-dir', inject('localDir')]);
  return JSON.parse(stdout);
}

describe('admin CLI against the local stack', () => {
  it('creates a workspace and key, manages the allowlist and revokes keys', async () => {
    const created = await admin('workspace', 'create', '--name', 'Acme', '--allowlist');
    expect(created.workspaceId).toMatch(/^ws_/);
    expect(created.apiKey).toMatch(/^sk_live_/);
    expect((await call('GET', '/api/v1/projects', { token: created.apiKey })).status).toBe(200);
    expect((await admin('allowlist', 'list')).workspaceIds).toContain(created.workspaceId);

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

  it('exits 2 with the usage for a bad command line, and 1 for an unknown key', async () => {
    await expect(admin('workspace', 'create')).rejects.toMatchObject({ code: 2 });
    await expect(admin('frobnicate')).rejects.toMatchObject({ code: 2 });
    const created = await admin('workspace', 'create', '--name', 'Other');
    await expect(admin('api-key', 'revoke', '--workspace', created.workspaceId, '--key', 'key_01JZZZZZZZZZZZZZZZZZZZZZZZ')).rejects.toMatchObject({
      code: 1,
    });
  });
});
