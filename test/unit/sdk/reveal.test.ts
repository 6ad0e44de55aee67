import { beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/src/client.ts';
import { ApiError } from '../../../sdk/src/errors.ts';
import { secrets, useCliHarness } from './cli-harness.ts';
import { fakeApi, ok, refusal, type SeenRequest } from './fake-api.ts';

const REVEALED = { id: 'sec_1', key: 'DATABASE_URL', version: 3, value: 'postgres://db' };
const answerReveal = (request: SeenRequest) => (request.path.endsWith('/reveal') ? ok(REVEALED) : undefined);

describe('the SDK reveals one value by id and by path', () => {
  const clientOver = (api: ReturnType<typeof fakeApi>) => createClient({ baseUrl: 'https://api.test', token: 't', fetch: api.fetch });

  it('asks for the text as written with ?raw=true only when raw is true', async () => {
    // Prepare
    const api = fakeApi({ api: answerReveal });
    const client = clientOver(api);
    // Act
    await client.reveal('sec_1', { raw: true });
    await client.revealByPath('payments/production/DATABASE_URL', { raw: true });
    await client.reveal('sec_1');
    await client.revealByPath('payments/production/DATABASE_URL', { raw: false });
    // Assess
    expect(api.requests.map((r) => `${r.path}${r.query}`)).toEqual([
      '/api/v1/secrets/sec_1/reveal?raw=true',
      '/api/v1/reveal?raw=true',
      '/api/v1/secrets/sec_1/reveal',
      '/api/v1/reveal',
    ]);
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ path: 'payments/production/DATABASE_URL' });
  });

  it('sends a past version in the query by id and in the body by path, and answers the value', async () => {
    // Prepare
    const api = fakeApi({ api: answerReveal });
    const client = clientOver(api);
    // Act
    const byId = await client.reveal('sec_1', { version: 2 });
    await client.revealByPath('payments/production/DATABASE_URL', { version: 2 });
    // Assess
    expect(byId).toEqual(REVEALED);
    expect(api.requests[0]!.query).toBe('?version=2');
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ path: 'payments/production/DATABASE_URL', version: 2 });
  });

  it("throws the API's 409 with the references it could not resolve", async () => {
    // Prepare
    const details = [{ reference: 'DB_HOST', reason: 'unresolvable' }];
    const client = clientOver(fakeApi({ api: () => refusal(409, 'CONFLICT', 'a reference cannot be resolved', details) }));
    // Act
    const failure = await client.reveal('sec_1').catch((error: unknown) => error);
    // Assess
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 409, code: 'CONFLICT', details });
  });
});

describe('`secrets get`', () => {
  let answer: (request: SeenRequest) => Response | undefined;
  // Prepare: a fake API and the connection in the environment
  const {
    stdout,
    stderr,
    api: { requests },
  } = useCliHarness({ api: { api: (request) => answer(request) } });
  beforeEach(() => {
    answer = answerReveal;
  });

  it('--raw reveals the path with ?raw=true and prints the text alone', async () => {
    // Prepare
    answer = (request) => (request.path === '/api/v1/reveal' ? ok({ ...REVEALED, value: 'postgres://${DB_HOST}/app' }) : undefined);
    // Act
    await secrets('get', 'DATABASE_URL', '--raw');
    // Assess
    expect(requests.map((r) => `${r.path}${r.query}`)).toEqual(['/api/v1/reveal?raw=true']);
    expect(JSON.parse(requests[0]!.body)).toEqual({ path: 'payments/production/DATABASE_URL' });
    expect(stdout.join('')).toBe('postgres://${DB_HOST}/app\n');
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('without --raw asks for the resolved value', async () => {
    // Act
    await secrets('get', 'DATABASE_URL');
    // Assess
    expect(requests.map((r) => `${r.path}${r.query}`)).toEqual(['/api/v1/reveal']);
    expect(stdout.join('')).toBe('postgres://db\n');
  });

  it('names each reference that failed on stderr, prints no value and exits as refused', async () => {
    // Prepare
    const details = [
      { reference: 'DB_HOST', reason: 'unresolvable' },
      { reference: 'staging.DB_PORT', reason: 'cycle' },
    ];
    answer = () => refusal(409, 'CONFLICT', 'references cannot be resolved', details);
    // Act
    await secrets('get', 'DATABASE_URL');
    // Assess
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toBe(
      'secrets: CONFLICT: references cannot be resolved (request req_1)\nsecrets: ${DB_HOST}: unresolvable\nsecrets: ${staging.DB_PORT}: cycle\n',
    );
    expect(process.exitCode).toBe(3);
  });

  it('prints no reference line for details that are not references (a stale key reads as one, not as ${…})', async () => {
    // Prepare
    answer = () => refusal(409, 'CONFLICT', 'stale', [{ key: 'A', baseVersion: 1, currentVersion: 2 }]);
    // Act
    await secrets('get', 'DATABASE_URL');
    // Assess
    expect(stderr.join('')).toBe('secrets: CONFLICT: stale (request req_1)\nsecrets: A: proposed on version 1, now version 2\n');
    expect(process.exitCode).toBe(3);
  });
});
