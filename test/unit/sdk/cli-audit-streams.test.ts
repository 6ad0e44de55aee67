import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { secrets as secretsCli, sentPastLookup, useCliHarness } from './cli-harness.ts';
import { ok, type SeenRequest } from './fake-api.ts';

/** `secrets audit-streams …` against a stand-in API (decisions.md v1.4, "Audit streams and tamper evidence"). */
describe('the secrets CLI: audit streams', () => {
  const HEC_TOKEN = 'hec-token-never-printed-0001';
  const DD_KEY = '0123456789abcdef0123456789abcdef';
  const AUTH = 'Bearer siem-credential-never-printed';
  const SECRET = 'whsec_signing-secret-printed-once-1234';
  let answer: (request: SeenRequest) => Response | undefined;
  const { stdout, stderr, api } = useCliHarness({
    api: { api: (request) => answer(request) },
    env: { SECRETS_PROJECT: undefined, SECRETS_ENV: undefined, SECRETS_STREAM_TOKEN: undefined, SECRETS_STREAM_API_KEY: undefined },
  });
  beforeEach(() => {
    answer = () => undefined;
  });
  const secrets = (...args: string[]) => secretsCli('audit-streams', ...args);
  const health = { status: 'active', createdAt: '2026-05-01T00:00:00.000Z', failingSince: null, lastDeliveredAt: null, lastError: null };
  const https = {
    id: 'as_1',
    type: 'https',
    url: 'https://siem.example/in',
    headers: ['Authorization'],
    secretHint: 'whsec_…1234',
    ...health,
  };
  const splunk = { id: 'as_2', type: 'splunk-hec', url: 'https://splunk.example:8088', ...health };
  const datadog = { id: 'as_3', type: 'datadog', site: 'datadoghq.eu', ...health };
  const sent = () => sentPastLookup(api);
  const stdin = (text: string) => vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([Buffer.from(text)]) as never);
  const printed = () => stdout.join('') + stderr.join('');

  it('create --type https prints the signing secret alone on stdout, once, with a warning, and never a header value', async () => {
    // Prepare
    vi.stubEnv('SIEM_AUTH', AUTH);
    answer = (r) => (r.path === '/api/v1/audit-streams' ? ok({ ...https, secret: SECRET }, 201) : undefined);
    // Act
    await secrets(
      'create',
      '--type',
      'https',
      '--url',
      https.url,
      '--header-env',
      'Authorization=SIEM_AUTH',
      '--header',
      'X-Source=secrets',
    );
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      ['POST', '/api/v1/audit-streams', { type: 'https', url: https.url, headers: { Authorization: AUTH, 'X-Source': 'secrets' } }],
    ]);
    expect(stdout.join('')).toBe(`${SECRET}\n`);
    expect(stderr.join('')).toMatch(/shown only this once: store it now/);
    expect(printed()).not.toContain(AUTH);
  });

  it('create --type splunk-hec reads the token from SECRETS_STREAM_TOKEN or stdin, prints the id alone and never the token', async () => {
    // Prepare
    answer = (r) => (r.path === '/api/v1/audit-streams' ? ok(splunk, 201) : undefined);
    vi.stubEnv('SECRETS_STREAM_TOKEN', HEC_TOKEN);
    // Act
    await secrets('create', '--type', 'splunk-hec', '--url', splunk.url);
    vi.stubEnv('SECRETS_STREAM_TOKEN', undefined);
    stdin(`${HEC_TOKEN}-stdin\n`);
    await secrets('create', '--type', 'splunk-hec', '--url', splunk.url, '--token-stdin');
    // Assess
    expect(sent().map((s) => s[2])).toEqual([
      { type: 'splunk-hec', url: splunk.url, token: HEC_TOKEN },
      { type: 'splunk-hec', url: splunk.url, token: `${HEC_TOKEN}-stdin` },
    ]);
    expect(stdout.join('')).toBe('as_2\nas_2\n');
    expect(printed()).not.toContain(HEC_TOKEN);
  });

  it('create --type datadog reads the API key from stdin and never prints it', async () => {
    // Prepare
    answer = (r) => (r.path === '/api/v1/audit-streams' ? ok(datadog, 201) : undefined);
    stdin(`${DD_KEY}\n`);
    // Act
    await secrets('create', '--type', 'datadog', '--site', 'datadoghq.eu', '--api-key-stdin', '--json');
    // Assess
    expect(sent()).toEqual([['POST', '/api/v1/audit-streams', { type: 'datadog', site: 'datadoghq.eu', apiKey: DD_KEY }]]);
    expect(JSON.parse(stdout.join(''))).toEqual(datadog);
    expect(printed()).not.toContain(DD_KEY);
  });

  it.each([
    ['a splunk-hec stream without a token', ['create', '--type', 'splunk-hec', '--url', splunk.url]],
    ['a datadog stream without a site', ['create', '--type', 'datadog']],
    ['an https stream without a url', ['create', '--type', 'https']],
    ['a header without a value', ['create', '--type', 'https', '--url', https.url, '--header', 'Authorization']],
    ['a header from an unset variable', ['create', '--type', 'https', '--url', https.url, '--header-env', 'Authorization=NOT_SET_1']],
    ['an update that changes nothing', ['update', 'as_1']],
    ['an update both disabling and enabling', ['update', 'as_1', '--disable', '--enable']],
    ['an update reading two credentials from one stdin', ['update', 'as_1', '--token-stdin', '--api-key-stdin']],
    ['an update both clearing and setting headers', ['update', 'as_1', '--clear-headers', '--header', 'A=1']],
  ])('%s is a usage error before any request', async (_name, args) => {
    // Act
    await secrets(...args);
    // Assess
    expect([process.exitCode, sent()]).toEqual([2, []]);
  });

  it('a header given without = is refused without echoing it (it may be a credential pasted in its place)', async () => {
    // Act
    await secrets('create', '--type', 'https', '--url', https.url, '--header', AUTH);
    // Assess
    expect(process.exitCode).toBe(2);
    expect(printed()).not.toContain('siem-credential');
  });

  it('update sends the fields given: url, headers (replacing them, or null), token from stdin, status', async () => {
    // Prepare
    answer = (r) => (r.method === 'PATCH' ? ok(https) : undefined);
    // Act
    await secrets('update', 'as_1', '--url', 'https://siem.example/v2', '--header', 'X-A=1');
    await secrets('update', 'as_1', '--clear-headers');
    await secrets('update', 'as_1', '--disable');
    await secrets('update', 'as_1', '--enable');
    stdin(HEC_TOKEN);
    await secrets('update', 'as_2', '--token-stdin');
    // A token left in the environment is create's default only: an update never sends it unasked.
    vi.stubEnv('SECRETS_STREAM_TOKEN', `${HEC_TOKEN}-env`);
    await secrets('update', 'as_2', '--url', splunk.url);
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      ['PATCH', '/api/v1/audit-streams/as_1', { url: 'https://siem.example/v2', headers: { 'X-A': '1' } }],
      ['PATCH', '/api/v1/audit-streams/as_1', { headers: null }],
      ['PATCH', '/api/v1/audit-streams/as_1', { status: 'disabled' }],
      ['PATCH', '/api/v1/audit-streams/as_1', { status: 'active' }],
      ['PATCH', '/api/v1/audit-streams/as_2', { token: HEC_TOKEN }],
      ['PATCH', '/api/v1/audit-streams/as_2', { url: splunk.url }],
    ]);
    expect(printed()).not.toContain(HEC_TOKEN);
  });

  it('list, show and delete call their routes and print the destination and last error', async () => {
    // Prepare
    const failing = { ...splunk, lastError: { statusCode: 503, reason: 'receiver unavailable', at: '2026-05-02T00:00:00.000Z' } };
    answer = (r) => {
      if (r.method === 'GET' && r.path === '/api/v1/audit-streams')
        return ok([https, failing, datadog], 200, { page: { limit: 200, nextCursor: null, hasMore: false } });
      if (r.method === 'GET') return ok(failing);
      if (r.method === 'DELETE') return ok({ id: 'as_2', deleted: true });
      return undefined;
    };
    // Act
    await secrets('list');
    await secrets('show', 'as_2');
    await secrets('delete', 'as_2');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      ['GET', '/api/v1/audit-streams', undefined],
      ['GET', '/api/v1/audit-streams/as_2', undefined],
      ['DELETE', '/api/v1/audit-streams/as_2', undefined],
    ]);
    expect(stdout.join('')).toContain('datadog:datadoghq.eu');
    expect(stdout.join('')).toMatch(/last error:\s+503: receiver unavailable/);
    expect(stderr.join('')).toContain('as_2: deleted');
    expect(api.requests[0]!.query).toBe('?limit=200');
  });

  it('test prints what the receiver answered, and exits 1 when it did not take the entry', async () => {
    // Prepare
    let delivered = true;
    answer = (r) =>
      r.method === 'POST' && r.path === '/api/v1/audit-streams/as_1/test'
        ? ok(delivered ? { delivered, statusCode: 200, error: null } : { delivered, statusCode: 503, error: 'the receiver answered 503' })
        : undefined;
    // Act
    await secrets('test', 'as_1');
    const first = process.exitCode ?? 0;
    delivered = false;
    await secrets('test', 'as_1', '--json');
    // Assess
    expect(sent()).toEqual([
      ['POST', '/api/v1/audit-streams/as_1/test', undefined],
      ['POST', '/api/v1/audit-streams/as_1/test', undefined],
    ]);
    expect([first, process.exitCode]).toEqual([0, 1]);
    expect(stdout[0]).toMatch(/delivered:\s+yes\nstatus code:\s+200/);
    expect(JSON.parse(stdout[1]!)).toEqual({ delivered: false, statusCode: 503, error: 'the receiver answered 503' });
  });
});
