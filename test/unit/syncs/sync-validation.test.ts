import { describe, expect, it } from 'vitest';
import { makeSyncRoutes } from '../../../functions/syncs/routes.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';
import { MAX_SECRETS_MANAGER_PREFIX, MAX_SSM_PREFIX } from '../../../shared/syncs/sync-schemas.ts';
import { syncQueueFromConfig } from '../../../shared/syncs/sync-queue-target.ts';
import { syncUrlCheck } from '../../../shared/syncs/sync-url-check.ts';

const routes = makeSyncRoutes({} as never);
const ENV_ID = 'env_01JX0000000000000000000000';
const create = (destination: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  parseInput(routes['POST /api/v1/syncs'].body!, { environmentId: ENV_ID, destination, ...more });
const patch = (body: Record<string, unknown>) => parseInput(routes['PATCH /api/v1/syncs/{id}'].body!, body);

/** The VALIDATION_ERROR message of a body, or 'ok' when it is accepted. */
async function verdict(parse: () => unknown): Promise<string> {
  try {
    parse();
    return 'ok';
  } catch (error) {
    expect((error as { code?: string }).code).toBe('VALIDATION_ERROR');
    return (error as Error).message;
  }
}

const github = { type: 'github-actions', repository: 'acme/web', token: 'ghp_x' };
const ssm = { type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/app/' };
const sm = { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: 'app/' };

describe('syncs: what a create accepts, each refusal naming the field and the rule', () => {
  it('GitHub: owner/repo (owner up to 39, repo up to 100), a token without spaces', async () => {
    expect(await verdict(() => create({ ...github, repository: `${'o'.repeat(39)}/${'r'.repeat(100)}` }))).toBe('ok');
    expect(await verdict(() => create({ ...github, repository: `${'o'.repeat(40)}/r` }))).toMatch(
      /^destination\.repository: must be owner\/repo/,
    );
    expect(await verdict(() => create({ ...github, repository: `o/${'r'.repeat(101)}` }))).toMatch(/^destination\.repository/);
    expect(await verdict(() => create({ ...github, repository: 'acme' }))).toMatch(/^destination\.repository/);
    expect(await verdict(() => create({ ...github, repository: 'acme/..' }))).toMatch(/^destination\.repository/);
    expect(await verdict(() => create({ ...github, repository: 'acme/.' }))).toMatch(/^destination\.repository/);
    expect(await verdict(() => create({ ...github, repository: 'acme/..x' }))).toBe('ok');
    expect(await verdict(() => create({ ...github, token: 'a b' }))).toMatch(/^destination\.token: must be printable ASCII/);
    expect(await verdict(() => create({ ...github, token: 'x'.repeat(1024) }))).toBe('ok');
    expect(await verdict(() => create({ ...github, token: 'x'.repeat(1025) }))).toMatch(/^destination\.token/);
    const { token: _token, ...tokenless } = github;
    expect(await verdict(() => create(tokenless))).toMatch(/^destination\.token/);
    expect(await verdict(() => create({ ...github, environment: 'e'.repeat(255) }))).toBe('ok');
    expect(await verdict(() => create({ ...github, environment: 'e'.repeat(256) }))).toMatch(/^destination\.environment/);
  });

  it('AWS: region form, role ARN, external id, KMS key, no token, no unknown field', async () => {
    expect(await verdict(() => create({ ...ssm, region: 'us-gov-west-1' }))).toBe('ok');
    expect(await verdict(() => create({ ...ssm, region: 'Europe' }))).toMatch(/^destination\.region: must be an AWS region/);
    const roleArn = 'arn:aws:iam::123456789012:role/sync/push';
    expect(await verdict(() => create({ ...ssm, roleArn, externalId: 'ab', kmsKeyId: 'alias/app' }))).toBe('ok');
    expect(await verdict(() => create({ ...ssm, roleArn: 'arn:aws:iam::123456789012:user/x' }))).toMatch(
      /^destination\.roleArn: must be an IAM role ARN/,
    );
    expect(await verdict(() => create({ ...ssm, roleArn, externalId: 'a' }))).toMatch(/^destination\.externalId/);
    expect(await verdict(() => create({ ...ssm, roleArn, externalId: 'e'.repeat(1224) }))).toBe('ok');
    expect(await verdict(() => create({ ...ssm, roleArn, externalId: 'e'.repeat(1225) }))).toMatch(/^destination\.externalId/);
    expect(await verdict(() => create({ ...ssm, kmsKeyId: 'a key' }))).toMatch(/^destination\.kmsKeyId/);
    expect(await verdict(() => create({ ...ssm, token: 'x' }))).toMatch(/destination/);
    expect(await verdict(() => create({ ...ssm, mode: 'json' }))).toMatch(/destination/);
  });

  it('Parameter Store: a path prefix within its name rules, up to 755 so every key fits 1011', async () => {
    expect(await verdict(() => create({ ...ssm, pathPrefix: `/${'p'.repeat(MAX_SSM_PREFIX - 1)}` }))).toBe('ok');
    expect(await verdict(() => create({ ...ssm, pathPrefix: `/${'p'.repeat(MAX_SSM_PREFIX)}` }))).toMatch(/^destination\.pathPrefix/);
    expect(await verdict(() => create({ ...ssm, pathPrefix: '' }))).toMatch(/^destination\.pathPrefix/);
    expect(await verdict(() => create({ ...ssm, pathPrefix: 'app_' }))).toBe('ok');
    expect(await verdict(() => create({ ...ssm, pathPrefix: 'app/prod/' }))).toMatch(/^destination\.pathPrefix: must start with \//);
    expect(await verdict(() => create({ ...ssm, pathPrefix: '/aws/x/' }))).toMatch(/^destination\.pathPrefix: must not begin with aws/);
    expect(await verdict(() => create({ ...ssm, pathPrefix: '/a b/' }))).toMatch(/^destination\.pathPrefix: may contain only/);
  });

  it('Secrets Manager: a name prefix up to 256 of its characters, mode secret-per-key or json', async () => {
    expect(await verdict(() => create({ ...sm, namePrefix: 'n'.repeat(MAX_SECRETS_MANAGER_PREFIX), mode: 'json' }))).toBe('ok');
    expect(await verdict(() => create({ ...sm, namePrefix: 'n'.repeat(MAX_SECRETS_MANAGER_PREFIX + 1) }))).toMatch(
      /^destination\.namePrefix/,
    );
    expect(await verdict(() => create({ ...sm, namePrefix: '' }))).toMatch(/^destination\.namePrefix/);
    expect(await verdict(() => create({ ...sm, namePrefix: 'a#b' }))).toMatch(/^destination\.namePrefix: may contain only/);
    expect(await verdict(() => create({ ...sm, mode: 'xml' }))).toMatch(/^destination\.mode/);
  });

  it('keys: a key pattern of 1 to 256 characters; prune a boolean', async () => {
    expect(await verdict(() => create(ssm, { keys: 'k'.repeat(256), prune: true }))).toBe('ok');
    expect(await verdict(() => create(ssm, { keys: 'k'.repeat(257) }))).toMatch(/^keys/);
    expect(await verdict(() => create(ssm, { keys: '' }))).toMatch(/^keys/);
    expect(await verdict(() => create(ssm, { prune: 'yes' }))).toMatch(/^prune/);
    expect(await verdict(() => create({ type: 'azure', region: 'x' }))).toMatch(/^destination/);
  });
});

describe('syncs: what a PATCH accepts', () => {
  it('a destination patch names its type; fields optional, null removes an optional one; an empty patch is refused', async () => {
    expect(await verdict(() => patch({ destination: { type: 'github-actions', token: 'ghp_y' } }))).toBe('ok');
    expect(await verdict(() => patch({ destination: { type: 'aws-ssm', roleArn: null } }))).toBe('ok');
    expect(await verdict(() => patch({ destination: { token: 'ghp_y' } }))).toMatch(/^destination/);
    expect(await verdict(() => patch({ destination: { type: 'aws-ssm', token: 'x' } }))).toMatch(/^destination/);
    expect(await verdict(() => patch({ paused: true }))).toBe('ok');
    expect(await verdict(() => patch({}))).toMatch(/must change at least one of/);
    expect(await verdict(() => patch({ status: 'ok' }))).toMatch(/status/);
  });
});

describe("syncs: GitHub's apiUrl through the webhooks' SSRF guard", () => {
  it('https to a public address passes; a private one only through the allow-list, which also lets http through', async () => {
    expect(await syncUrlCheck(undefined)('https://8.8.8.8/api')).toEqual({ ok: true });
    expect(await syncUrlCheck(undefined)('http://8.8.8.8/api')).toEqual({ ok: false, reason: 'must use https' });
    expect(await syncUrlCheck(undefined)('https://127.0.0.1:8443/')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('blocked'),
    });
    expect(await syncUrlCheck('127.0.0.0/8')('http://127.0.0.1:8080/')).toEqual({ ok: true });
    expect(await syncUrlCheck('127.0.0.0/8')('http://10.0.0.1/')).toMatchObject({ ok: false, reason: expect.stringContaining('blocked') });
    expect(await syncUrlCheck('127.0.0.0/8')('ftp://127.0.0.1/')).toEqual({ ok: false, reason: 'must use https' });
  });
});

describe('syncs: the sync queue a function builds', () => {
  it('fails naming SYNC_QUEUE_URL when it is not set (only when a route first queues), and sends to it when it is', async () => {
    const config = { webhooks: { sqsEndpoint: undefined } } as never;
    expect(() => syncQueueFromConfig(config, {})).toThrow('Invalid configuration: SYNC_QUEUE_URL is required to queue syncs');
    expect(syncQueueFromConfig(config, { SYNC_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/syncs' })).toHaveProperty('enqueue');
  });
});
