import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { secrets, sentPastLookup, useCliHarness } from './cli-harness.ts';
import { ok, type SeenRequest } from './fake-api.ts';

/** `secrets syncs …` against a stand-in API (decisions.md v1.4, "Syncs"). */
describe('the secrets CLI: syncs', () => {
  const TOKEN = 'ghp_cli_token_never_printed';
  let answer: (request: SeenRequest) => Response | undefined;
  const { stdout, stderr, api } = useCliHarness({ api: { api: (request) => answer(request) }, env: { SECRETS_SYNC_TOKEN: undefined } });
  beforeEach(() => {
    answer = () => undefined;
  });
  const sync = (over: Record<string, unknown> = {}) => ({
    id: 'sync_1',
    environmentId: 'env_1',
    destination: { type: 'github-actions', repository: 'acme/web' },
    keys: '**',
    prune: false,
    status: 'pending',
    lastSyncedAt: null,
    lastError: null,
    createdAt: '2026-05-01T00:00:00.000Z',
    ...over,
  });
  const sent = () => sentPastLookup(api);

  it('create --github-repo reads the token from SECRETS_SYNC_TOKEN, never prints it, and prints the id alone', async () => {
    vi.stubEnv('SECRETS_SYNC_TOKEN', TOKEN);
    answer = (r) => (r.path === '/api/v1/syncs' ? ok(sync(), 201) : undefined);
    await secrets('syncs', 'create', '--github-repo', 'acme/web', '--keys', 'DB_*', '--prune');
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      [
        'POST',
        '/api/v1/syncs',
        {
          environmentId: 'env_1',
          destination: { type: 'github-actions', repository: 'acme/web', token: TOKEN },
          keys: 'DB_*',
          prune: true,
        },
      ],
    ]);
    expect(stdout.join('')).toBe('sync_1\n');
    expect(stdout.join('') + stderr.join('')).not.toContain(TOKEN);
  });

  it('create --token-stdin reads the token from stdin', async () => {
    vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([Buffer.from(`${TOKEN}\n`)]) as never);
    answer = (r) => (r.path === '/api/v1/syncs' ? ok(sync(), 201) : undefined);
    await secrets('syncs', 'create', '--github-repo', 'acme/web', '--token-stdin');
    expect((sent()[0]![2] as { destination: { token: string } }).destination.token).toBe(TOKEN);
  });

  it('a GitHub sync without a token, or no single destination, is a usage error before any request', async () => {
    await secrets('syncs', 'create', '--github-repo', 'acme/web');
    expect([process.exitCode, sent()]).toEqual([2, []]);
    await secrets('syncs', 'create', '--aws-ssm', '--aws-secrets-manager', '--region', 'us-east-1');
    expect([process.exitCode, sent()]).toEqual([2, []]);
  });

  it('create --aws-ssm and --aws-secrets-manager send their fields', async () => {
    answer = (r) => (r.path === '/api/v1/syncs' ? ok(sync(), 201) : undefined);
    await secrets('syncs', 'create', '--aws-ssm', '--region', 'eu-west-1', '--path-prefix', '/web/', '--role-arn', 'arn:aws:iam::1:role/r');
    const arn = 'arn:aws:iam::1:role/r';
    await secrets('syncs', 'create', '--aws-secrets-manager', '--region', 'us-east-1', '--name-prefix', 'web', '--mode', 'json');
    expect(sent().map((s) => (s[2] as { destination: unknown }).destination)).toEqual([
      { type: 'aws-ssm', region: 'eu-west-1', roleArn: arn, pathPrefix: '/web/' },
      { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: 'web', mode: 'json' },
    ]);
  });

  it('list, show, run, pause, resume and delete call their routes', async () => {
    answer = (r) => {
      if (r.method === 'GET' && r.path === '/api/v1/syncs')
        return ok([sync()], 200, { page: { limit: 200, nextCursor: null, hasMore: false } });
      if (r.method === 'DELETE') return ok({ id: 'sync_1', deleted: true });
      if (r.path.startsWith('/api/v1/syncs/sync_1'))
        return ok(sync({ status: r.body?.includes('true') ? 'paused' : 'pending' }), r.path.endsWith('/run') ? 202 : 200);
      return undefined;
    };
    await secrets('syncs', 'list');
    expect(stdout.join('')).toContain('github:acme/web');
    for (const command of ['show', 'run', 'pause', 'resume', 'delete']) await secrets('syncs', command, 'sync_1');
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent().map(([method, path, body]) => [method, path, body])).toEqual([
      ['GET', '/api/v1/syncs', undefined],
      ['GET', '/api/v1/syncs/sync_1', undefined],
      ['POST', '/api/v1/syncs/sync_1/run', undefined],
      ['PATCH', '/api/v1/syncs/sync_1', { paused: true }],
      ['PATCH', '/api/v1/syncs/sync_1', { paused: false }],
      ['DELETE', '/api/v1/syncs/sync_1', undefined],
    ]);
    expect(stderr.join('')).toContain('sync_1: status paused');
    expect(api.requests[0]!.query).toBe('?limit=200');
  });

  it("list --env keeps the target environment's syncs; without --env every sync, whatever SECRETS_ENV says", async () => {
    answer = (r) =>
      r.method === 'GET' && r.path === '/api/v1/syncs'
        ? ok([], 200, { page: { limit: 200, nextCursor: null, hasMore: false } })
        : undefined;
    await secrets('syncs', 'list', '--env', 'production');
    await secrets('syncs', 'list');
    const lists = api.requests.filter((r) => r.path === '/api/v1/syncs').map((r) => r.query);
    expect(lists).toEqual(['?limit=200&environmentId=env_1', '?limit=200']);
  });
});
