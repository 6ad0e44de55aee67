import { InvalidArgumentError } from 'commander';
import { beforeEach, describe, expect, it } from 'vitest';
import { instant } from '../../../sdk/src/cli-webhooks.ts';
import { secrets as secretsCli, useCliHarness } from './cli-harness.ts';
import { ok, type SeenRequest } from './fake-api.ts';

const NOW = Date.parse('2026-05-10T12:00:00.000Z');

describe('instant: --since and --until', () => {
  it.each([
    ['2026-05-01T08:30:00Z', '2026-05-01T08:30:00.000Z'],
    ['2026-05-01T10:30:00+02:00', '2026-05-01T08:30:00.000Z'],
    ['2026-05-01', '2026-05-01T00:00:00.000Z'],
    ['24h', '2026-05-09T12:00:00.000Z'],
    ['3d', '2026-05-07T12:00:00.000Z'],
    ['90m', '2026-05-10T10:30:00.000Z'],
    ['3600', '2026-05-10T11:00:00.000Z'],
  ])('reads %s as %s', (text, expected) => {
    // Act
    const at = instant(text, NOW);
    // Assess
    expect(at).toBe(expected);
  });

  it.each(['yesterday', '1w', '1h30m', '0h', '-3d', '2026-13-45', '2026-05-01 08:30', ''])(
    'refuses %j as a usage error naming both forms',
    (text) => {
      // Act
      const read = () => instant(text, NOW);
      // Assess
      expect(read).toThrow(InvalidArgumentError);
      expect(read).toThrow(/^expected an ISO time \(2026-05-01T12:00:00Z\) or a duration ago: a positive whole number/);
    },
  );
});

describe('`secrets webhooks` output', () => {
  const SECRET = 'whsec_unit-test-secret-that-must-stay-on-stdout-1234';
  let answer: (request: SeenRequest) => Response | undefined;
  const { stdout, stderr, api } = useCliHarness({
    api: { api: (request) => answer(request) },
    env: { SECRETS_PROJECT: undefined, SECRETS_ENV: undefined },
  });
  beforeEach(() => {
    answer = () => undefined;
  });
  const secrets = (...args: string[]) => secretsCli('webhooks', ...args);
  const endpoint = {
    id: 'we_1',
    url: 'https://hooks.example/in',
    events: ['service.secret.create'],
    description: null,
    enabled: true,
    secretHint: 'whsec_…1234',
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
    disabledAt: null,
    disabledReason: null,
    consecutiveFailures: 0,
    failingSince: null,
  };

  it('rotate-secret sends the hours asked and prints the secret alone on stdout, the overlap on stderr', async () => {
    // Prepare
    answer = () => ok({ ...endpoint, secret: SECRET, previousSecretExpiresAt: '2999-01-01T00:00:00.000Z' });
    // Act
    await secrets('rotate-secret', 'we_1', '--expire-current-in-hours', '0');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(api.requests.map((r) => [r.method, r.path, JSON.parse(r.body)])).toEqual([
      ['POST', '/api/v1/webhooks/we_1/rotate-secret', { expireCurrentInHours: 0 }],
    ]);
    expect(stdout.join('') === `${SECRET}\n`, 'stdout is the secret alone').toBe(true);
    expect(stderr.join('')).toBe(
      'we_1: new signing secret whsec_…1234, shown only this once; the old secret keeps signing until 2999-01-01T00:00:00.000Z\n',
    );
  });

  it('rotate-secret without the flag leaves the hours to the API, and says when the old secret has stopped', async () => {
    // Prepare
    answer = () => ok({ ...endpoint, secret: SECRET, previousSecretExpiresAt: null });
    // Act
    await secrets('rotate-secret', 'we_1');
    // Assess
    expect(api.requests.map((r) => JSON.parse(r.body))).toEqual([{}]);
    expect(stderr.join('')).toBe('we_1: new signing secret whsec_…1234, shown only this once; the old secret no longer signs\n');
  });

  it('stats prints the rate as a percentage and the percentiles in ms, or n/a and never', async () => {
    // Prepare
    const stats = {
      since: '2026-05-09T12:00:00.000Z',
      deliveries: 41,
      succeeded: 39,
      failed: 1,
      pending: 1,
      successRate: 39 / 40,
      p50DurationMs: 120,
      p95DurationMs: 480,
      lastSuccessAt: '2026-05-10T11:59:00.000Z',
      lastFailureAt: null,
    };
    answer = () => ok(stats);
    // Act
    await secrets('stats', 'we_1', '--since', '2026-05-09T12:30:00Z');
    const counted = stdout.splice(0).join('');
    answer = () =>
      ok({
        ...stats,
        deliveries: 1,
        succeeded: 0,
        failed: 0,
        successRate: null,
        p50DurationMs: null,
        p95DurationMs: null,
        lastSuccessAt: null,
      });
    await secrets('stats', 'we_1');
    // Assess
    expect(api.requests.map((r) => r.path)).toEqual(['/api/v1/webhooks/we_1/stats', '/api/v1/webhooks/we_1/stats']);
    expect(counted).toMatch(
      /^success rate: +97\.5%\np50 duration: +120 ms\np95 duration: +480 ms\nlast success: +2026-05-10T11:59:00\.000Z\nlast failure: +never$/m,
    );
    expect(stdout.join('')).toMatch(/^success rate: +n\/a\np50 duration: +n\/a\np95 duration: +n\/a\nlast success: +never\n/m);
  });

  it('recover sends the span as ISO times and says how many it queued', async () => {
    // Prepare
    answer = () => ok({ queued: 1 }, 202);
    // Act
    await secrets('recover', 'we_1', '--since', '2026-05-01T00:00:00Z', '--until', '2026-05-02T00:00:00+00:00');
    // Assess
    expect(api.requests.map((r) => JSON.parse(r.body))).toEqual([{ since: '2026-05-01T00:00:00.000Z', until: '2026-05-02T00:00:00.000Z' }]);
    expect(stdout.join('')).toBe('queued 1 failed delivery\n');
  });

  it('refuses a bad --expire-current-in-hours or --since with exit status 2, before any request', async () => {
    // Act
    for (const hours of ['-1', '49', '1.5', '24h']) await secrets('rotate-secret', 'we_1', '--expire-current-in-hours', hours);
    await secrets('stats', 'we_1', '--since', 'last week');
    // Assess
    expect(process.exitCode).toBe(2);
    expect(api.requests).toEqual([]);
    expect(stderr.join('').match(/option '--expire-current-in-hours <n>' argument '[^']+' is invalid/g)).toHaveLength(4);
    expect(stderr.join('')).toContain("option '--since <time>' argument 'last week' is invalid");
  });
});
