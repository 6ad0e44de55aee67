import { beforeEach, describe, expect, it } from 'vitest';
import { secrets, useCliHarness } from './cli-harness.ts';
import { ok, refusal, type SeenRequest } from './fake-api.ts';

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:rotate-postgres';
const SECRET = {
  id: 'sec_1',
  key: 'DB_PASSWORD',
  currentVersion: 2,
  createdAt: '2026-05-01T00:00:00.000Z',
  updatedAt: '2026-05-02T00:00:00.000Z',
};
const ROTATION = {
  enabled: true,
  function: null,
  schedule: 'rate(30 days)',
  duration: '2h',
  lastRotatedAt: null,
  nextRotationAt: '2026-06-01T00:00:00.000Z',
};

describe('`secrets rotation` and `secrets rotate`', () => {
  let answer: (request: SeenRequest) => Response | undefined;
  // The key's id comes from the environment's list, as for `history` and `rollback`; `answer` answers the secret's routes.
  const { stdout, stderr, api } = useCliHarness({
    api: {
      api: (request) => {
        if (request.path === '/api/v1/environments/env_1/secrets') return ok([SECRET], 200, { page: { nextCursor: null } });
        return request.path.startsWith('/api/v1/secrets/') ? answer(request) : undefined;
      },
    },
  });
  beforeEach(() => {
    answer = () => undefined;
  });
  /** The requests past the key's lookup (environment by slugs, then its secrets). */
  const sent = () => api.requests.slice(2).map((r) => [r.method, r.path, r.body ? JSON.parse(r.body) : undefined]);

  it('rotation set sends the schedule, the duration and the generator of the flags given, and prints the rotation', async () => {
    // Prepare
    answer = () => ok(ROTATION);
    // Act
    await secrets(
      'rotation',
      'set',
      'DB_PASSWORD',
      '--schedule',
      'rate(30 days)',
      '--duration',
      '2h',
      '--length',
      '20',
      '--exclude-characters',
      'lI1O0',
      '--exclude-punctuation',
      '--include-space',
    );
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(api.requests.slice(0, 2).map((r) => r.path)).toEqual([
      '/api/v1/projects/by-slug/payments/environments/production',
      '/api/v1/environments/env_1/secrets',
    ]);
    expect(sent()).toEqual([
      [
        'PUT',
        '/api/v1/secrets/sec_1/rotation',
        {
          function: null,
          schedule: 'rate(30 days)',
          duration: '2h',
          generator: { length: 20, excludeCharacters: 'lI1O0', excludePunctuation: true, includeSpace: true },
        },
      ],
    ]);
    expect(stdout.join('')).toBe(
      [
        'secret:        DB_PASSWORD',
        'enabled:       yes',
        'function:      none (the service writes a random value)',
        'schedule:      rate(30 days)',
        'duration:      2h',
        'last rotated:  never',
        'next rotation: 2026-06-01T00:00:00.000Z',
        '',
      ].join('\n'),
    );
  });

  it('rotation set --function sends the ARN and no generator nor duration; --json prints the rotation as the API answered it', async () => {
    // Prepare
    const configured = { ...ROTATION, function: ARN, schedule: 'cron(0 3 ? * SUN *)', duration: null, nextRotationAt: null };
    answer = () => ok(configured);
    // Act
    await secrets('rotation', 'set', 'DB_PASSWORD', '--schedule', 'cron(0 3 ? * SUN *)', '--function', ARN, '--json');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([['PUT', '/api/v1/secrets/sec_1/rotation', { function: ARN, schedule: 'cron(0 3 ? * SUN *)' }]]);
    expect(JSON.parse(stdout.join(''))).toEqual(configured);
  });

  it.each([
    ['--length', '20'],
    ['--exclude-characters', 'abc'],
    ['--exclude-numbers'],
    ['--exclude-punctuation'],
    ['--exclude-uppercase'],
    ['--exclude-lowercase'],
    ['--include-space'],
  ])('refuses --function with %s: a usage error (exit status 2) before any request', async (...flag) => {
    // Act
    await secrets('rotation', 'set', 'DB_PASSWORD', '--schedule', 'rate(7 days)', '--function', ARN, ...flag);
    // Assess
    expect(process.exitCode).toBe(2);
    expect(api.requests).toEqual([]);
    expect(stderr.join('')).toMatch(new RegExp(`option '--function <arn>' cannot be used with option '${flag[0]}`));
  });

  it('refuses a bad --length or --duration, and a missing --schedule, with exit status 2 before any request', async () => {
    // Act
    for (const length of ['3', '4097', '1.5', 'ten'])
      await secrets('rotation', 'set', 'K', '--schedule', 'rate(1 day)', '--length', length);
    for (const duration of ['0h', '25h', '2', '90m'])
      await secrets('rotation', 'set', 'K', '--schedule', 'rate(1 day)', '--duration', duration);
    await secrets('rotation', 'set', 'K');
    // Assess
    expect(process.exitCode).toBe(2);
    expect(api.requests).toEqual([]);
    const errors = stderr.join('');
    expect(
      errors.match(/option '--length <n>' argument '[^']+' is invalid\. expected a whole number of characters from 4 to 4096/g),
    ).toHaveLength(4);
    expect(errors.match(/option '--duration <hours>' argument '[^']+' is invalid\. expected 1h to 24h, in whole hours/g)).toHaveLength(4);
    expect(errors).toContain("required option '--schedule <expr>' not specified");
  });

  it('rotation off sends DELETE and says so on stderr, or that there was none; --json prints the answer', async () => {
    // Prepare
    answer = () => ok({ ...ROTATION, enabled: false, nextRotationAt: null });
    // Act
    await secrets('rotation', 'off', 'DB_PASSWORD');
    answer = () => ok(null);
    await secrets('rotation', 'off', 'DB_PASSWORD');
    await secrets('rotation', 'off', 'DB_PASSWORD', '--json');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(api.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(Array(3).fill('/api/v1/secrets/sec_1/rotation'));
    expect(stderr.join('')).toBe('DB_PASSWORD: rotation off\nDB_PASSWORD: rotation was not configured\n');
    expect(stdout.join('')).toBe('null\n');
  });

  it('rotation show reads the secret by id and prints its rotation, or says none is configured', async () => {
    // Prepare
    const secret = { ...SECRET, projectId: 'proj_1', environmentId: 'env_1', path: 'payments/production/DB_PASSWORD', tags: {} };
    const off = {
      ...ROTATION,
      enabled: false,
      function: ARN,
      duration: null,
      lastRotatedAt: '2026-05-05T00:00:00.000Z',
      nextRotationAt: null,
    };
    answer = () => ok({ ...secret, rotation: off });
    // Act
    await secrets('rotation', 'show', 'DB_PASSWORD');
    const shown = stdout.splice(0).join('');
    answer = () => ok({ ...secret, rotation: null });
    await secrets('rotation', 'show', 'DB_PASSWORD');
    const none = stdout.splice(0).join('');
    await secrets('rotation', 'show', 'DB_PASSWORD', '--json');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(api.requests.filter((r) => r.path.startsWith('/api/v1/secrets/')).map((r) => [r.method, r.path])).toEqual(
      Array(3).fill(['GET', '/api/v1/secrets/sec_1']),
    );
    expect(shown).toMatch(
      /^enabled: +no\nfunction: +arn:aws:lambda:.*\n(.*\n)*last rotated: +2026-05-05T00:00:00\.000Z\nnext rotation: +none \(rotation is off\)\n$/m,
    );
    expect(none).toBe('');
    expect(stderr.join('')).toBe('secrets: DB_PASSWORD: rotation not configured\n');
    expect(stdout.join('')).toBe('null\n');
  });

  it('rotate prints the version id alone on stdout and a note on stderr; --json prints the answer', async () => {
    // Prepare
    const started = { secretId: 'sec_1', versionId: '3f0c9f1e-6a47-4c1b-9a57-0d2f1b6c8e21' };
    answer = () => ok(started, 202);
    // Act
    await secrets('rotate', 'DB_PASSWORD');
    const plain = stdout.splice(0).join('');
    await secrets('rotate', 'DB_PASSWORD', '--json');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(api.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(Array(2).fill('/api/v1/secrets/sec_1/rotate'));
    expect(plain).toBe(`${started.versionId}\n`);
    expect(stderr.join('')).toBe('DB_PASSWORD: rotation started (secrets rotation show DB_PASSWORD tells when it has ended)\n');
    expect(JSON.parse(stdout.join(''))).toEqual(started);
  });

  it("rotate on a secret without rotation prints the API's CONFLICT and exits 3, as any refusal", async () => {
    // Prepare
    answer = () => refusal(409, 'CONFLICT', 'rotation: not configured for this secret; PUT …/rotation first');
    // Act
    await secrets('rotate', 'DB_PASSWORD');
    // Assess
    expect(process.exitCode).toBe(3);
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toBe('secrets: CONFLICT: rotation: not configured for this secret; PUT …/rotation first (request req_1)\n');
  });

  it('takes the target from flags before or after the command, and a key the environment lacks is NOT_FOUND (exit 3)', async () => {
    // Act
    await secrets('--project', 'web', 'rotation', 'show', 'NO_SUCH_KEY', '--env', 'staging');
    // Assess
    expect(process.exitCode).toBe(3);
    expect(api.requests.map((r) => r.path)).toEqual([
      '/api/v1/projects/by-slug/web/environments/staging',
      '/api/v1/environments/env_1/secrets',
    ]);
    expect(stderr.join('')).toBe('secrets: NOT_FOUND: no secret NO_SUCH_KEY in web/staging\n');
  });
});
