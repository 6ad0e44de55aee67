import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * `secrets change-requests …` and `secrets set|delete … --propose` against the local stack (decisions.md v1.4, "Change
 * requests"): in an environment with a review policy a plain write is refused with the way on, a proposal is
 * reviewed by another identity than its author and lands when merged.
 */
describe('the secrets CLI: change requests', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let reviewer: string;
  let envId: string;
  let folder: string;
  let cache: string;

  /** Runs `secrets …` on the test's environment, with the workspace's API key unless `token` names another. */
  async function secrets(args: string[], token = ws.apiKey) {
    const env = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: token,
      SECRETS_PROJECT: 'crcli',
      SECRETS_ENV: 'prod',
      SECRETS_ACCESS_KEY_ID: undefined,
      SECRETS_AUTH: undefined,
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env });
  }

  /** The current value of `key`, as an admin reads it through the API (undefined when there is no such secret). */
  async function current(key: string) {
    const list = await call('GET', `/api/v1/environments/${envId}/secrets?limit=200`, { token: ws.apiKey });
    const secret = (list.body.data as { id: string; key: string }[]).find((s) => s.key === key);
    if (!secret) return undefined;
    return (await call('POST', `/api/v1/secrets/${secret.id}/reveal`, { token: ws.apiKey })).body.data.value as string;
  }

  beforeAll(async () => {
    ws = await newWorkspace();
    reviewer = (await ws.admin.createApiKey(ws.workspaceId, 'reviewer')).apiKey;
    ({
      environment: { id: envId },
    } = await newEnvironment(ws.apiKey, { project: 'crcli', environment: 'prod' }));
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'API_KEY', value: 'before' } });
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'OLD_KEY', value: 'old' } });
    const policy = await call('PUT', `/api/v1/environments/${envId}/review-policy`, { token: ws.apiKey, body: { requiredApprovals: 1 } });
    expect(policy.status).toBe(200);
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-cr-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });

  it('refuses a plain set and delete under the policy, pointing to --propose; nothing is written', async () => {
    // Act
    const set = await secrets(['set', 'API_KEY=direct']);
    const deleted = await secrets(['delete', 'OLD_KEY']);
    // Assess
    for (const refused of [set, deleted]) {
      expect(refused).toMatchObject({ code: 3, stdout: '', stderr: expect.stringMatching(/^secrets: REVIEW_REQUIRED: /) });
      expect(refused.stderr).toContain('--propose TITLE');
    }
    expect(await current('API_KEY')).toBe('before');
    expect(await current('OLD_KEY')).toBe('old');
  });

  it('proposes a set, lists it, refuses its author’s approval, approves it by another API key, and merges it', async () => {
    // Act: propose, list, review twice, merge
    const proposed = await secrets(['set', 'API_KEY=after', '--propose', 'Rotate the API key']);
    const id = proposed.stdout.trim();
    const listed = cliJson(await secrets(['change-requests', 'list', '--status', 'open', '--json']));
    const table = await secrets(['change-requests', 'list']);
    const own = await secrets(['change-requests', 'approve', id]);
    const approved = await secrets(['change-requests', 'approve', id, '--comment', 'Looks right'], reviewer);
    const revealed = await secrets(['change-requests', 'show', id, '--reveal', 'API_KEY'], reviewer);
    const merged = await secrets(['change-requests', 'merge', id]);
    const shown = await secrets(['change-requests', 'show', id]);
    // Assess
    expect(proposed).toMatchObject({ code: 0, stderr: expect.stringContaining(`secrets change-requests approve ${id}`) });
    expect(id).toMatch(/^cr_/);
    expect(proposed.stderr).not.toContain('after');
    expect(listed).toEqual([expect.objectContaining({ id, title: 'Rotate the API key', status: 'open' })]);
    expect(listed[0].changes).toEqual([{ key: 'API_KEY', action: 'set', baseVersion: 1 }]);
    expect(table.stdout).toMatch(new RegExp(`^ID +STATUS +TITLE.*\\n${id} +open +Rotate the API key +API_KEY +0 `));
    expect(own).toMatchObject({ code: 3, stderr: expect.stringMatching(/^secrets: FORBIDDEN: /) });
    expect(approved).toMatchObject({
      code: 0,
      stderr: `${id}: approved by you; status approved; merge it: secrets change-requests merge ${id}\n`,
    });
    expect(revealed).toMatchObject({ code: 0, stdout: 'after\n' });
    expect(merged).toMatchObject({ code: 0, stderr: `${id}: merged (API_KEY set)\n` });
    expect(shown.stdout).toMatch(/\nstatus: +merged\n/);
    expect(shown.stdout).toMatch(/\nAPI_KEY +set +1\n/);
    expect(shown.stdout).toMatch(/\nREVIEWER +DECISION +AT +COMMENT\n\S+ +approve +\S+ +Looks right\n$/);
    expect(await current('API_KEY')).toBe('after');
  });

  it('proposes a delete that a reviewer rejects, and closes another proposal', async () => {
    // Act
    const proposed = await secrets(['delete', 'OLD_KEY', '--propose', 'Drop the old key']);
    const id = proposed.stdout.trim();
    const rejected = await secrets(['change-requests', 'reject', id, '--comment', 'Still used'], reviewer);
    const other = (await secrets(['set', 'NEW_KEY=new', '--propose', 'Add a key'])).stdout.trim();
    const closed = await secrets(['change-requests', 'close', other]);
    const listed = cliJson(await secrets(['change-requests', 'list', '--json']));
    // Assess
    expect(proposed.code).toBe(0);
    expect(rejected).toMatchObject({ code: 0, stderr: `${id}: rejected by you; status rejected\n` });
    expect(closed).toMatchObject({ code: 0, stderr: `${other}: closed\n` });
    const statuses = Object.fromEntries((listed as { id: string; status: string }[]).map((r) => [r.id, r.status]));
    expect(statuses).toMatchObject({ [id]: 'rejected', [other]: 'closed' });
    expect(await current('OLD_KEY')).toBe('old');
    expect(await current('NEW_KEY')).toBeUndefined();
  });
});
