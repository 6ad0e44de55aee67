import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyWebhook } from '@secrets-service/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import type { HttpsReceiver, ReceivedRequest } from '../../support/https-receiver.ts';
import { failedDeliveries, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

const UNKNOWN_ENDPOINT = 'we_01JZZZZZZZZZZZZZZZZZZZZZZZ';

/**
 * `secrets webhooks list|test|recover|rotate-secret|stats` against the local stack, with a local HTTPS receiver.
 * A signing secret is only ever compared, never handed to `expect` as a value a failure would print.
 */
describe('the secrets CLI: webhooks', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let receiver: HttpsReceiver;
  let folder: string;
  let cache: string;

  /** Runs `secrets …` with the workspace's API key unless told otherwise; answers stdout, stderr and the exit status. */
  async function secrets(args: string[], env: Record<string, string | undefined> = {}) {
    const base = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: ws.apiKey,
      SECRETS_PROJECT: undefined,
      SECRETS_ENV: undefined,
      XDG_CACHE_HOME: cache,
    };
    return runCli(args, { cwd: folder, env: { ...base, ...env } });
  }

  /** Runs `secrets …` that must succeed with JSON on stdout; answers it parsed. */
  async function json(args: string[], env: Record<string, string | undefined> = {}) {
    return cliJson(await secrets([...args, '--json'], env));
  }

  /** A fresh endpoint of the shared receiver (its own path), so each test counts only its own deliveries. */
  const endpoint = (path: string) => registerEndpoint(ws.apiKey, `${receiver.origin}/${path}`, ['service.secret.delete']);

  /** The receiver's requests of one delivery. */
  const requestsOf = (deliveryId: string) => receiver.requests.filter((r) => r.headers['service-delivery-id'] === deliveryId);

  /** Whether a request verifies with `secret` (answered as a boolean, so the secret never reaches a failure message). */
  const verifies = (request: ReceivedRequest, secret: string) => {
    try {
      return verifyWebhook(request.body, request.headers as Record<string, string>, secret).type === 'service.ping';
    } catch {
      return false;
    }
  };

  beforeAll(async () => {
    ws = await newWorkspace();
    receiver = await startReceiver({ status: 204 });
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-webhooks-'));
    cache = mkdtempSync(join(tmpdir(), 'secrets-cache-'));
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('lists the endpoints: id, url, events, enabled, failures and the secret hint, never a secret', async () => {
    // Prepare
    const listed = await endpoint('listed');
    // Act
    const table = await secrets(['webhooks', 'list']);
    const records = await json(['webhooks', 'list']);
    // Assess
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID +URL +EVENTS +ENABLED +FAILURES +SECRET\n/);
    expect(table.stdout).toMatch(
      new RegExp(`^${listed.id} +${listed.url} +service\\.secret\\.delete +yes +0 +whsec_…${listed.secret.slice(-4)}$`, 'm'),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ id: listed.id, url: listed.url, enabled: true, consecutiveFailures: 0, previousSecretExpiresAt: null }),
    );
    expect(table.stdout.includes(listed.secret) || JSON.stringify(records).includes(listed.secret), 'a secret in the list').toBe(false);
  });

  it('test sends a signed service.ping the receiver gets, and prints its delivery id and status', async () => {
    // Prepare
    const pinged = await endpoint('pinged');
    // Act
    const sent = await secrets(['webhooks', 'test', pinged.id]);
    const deliveryId = /^delivery: +(whd_\w+)$/m.exec(sent.stdout)?.[1] ?? '';
    const [request] = await waitFor(async () => requestsOf(deliveryId).length > 0 && requestsOf(deliveryId), 20_000, 'the ping');
    // Assess
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^event: +service\.ping evt_\w+$/m);
    expect(sent.stdout).toMatch(/^status: +pending$/m);
    expect(sent.stderr).toContain(`/api/v1/webhook-deliveries/${deliveryId}`);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'service.ping', data: { endpointId: pinged.id } });
    expect(verifies(request!, pinged.secret), 'the ping verifies with the endpoint secret').toBe(true);
  });

  it('rotate-secret prints the new secret alone on stdout, the overlap on stderr; the list shows its hint and both secrets sign', async () => {
    // Prepare
    const rotating = await endpoint('rotating');
    // Act
    const rotated = await secrets(['webhooks', 'rotate-secret', rotating.id, '--expire-current-in-hours', '1']);
    const secret = rotated.stdout.replace(/\n$/, '');
    const table = await secrets(['webhooks', 'list']);
    const deliveryId = (await json(['webhooks', 'test', rotating.id])).id as string;
    const [request] = await waitFor(async () => requestsOf(deliveryId).length > 0 && requestsOf(deliveryId), 20_000, 'the ping');
    // Assess: the secret is one line of its own, new, and nowhere else
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(/^whsec_[\w-]{43}\n$/.test(rotated.stdout), 'stdout is the new secret alone').toBe(true);
    expect(secret === rotating.secret, 'the new secret is the old one').toBe(false);
    expect(rotated.stderr.includes(secret) || rotated.stderr.includes(rotating.secret), 'a secret on stderr').toBe(false);
    expect(rotated.stderr).toMatch(
      new RegExp(
        `^${rotating.id}: new signing secret whsec_…${secret.slice(-4)}, shown only this once; the old secret keeps signing until \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect(table.stdout).toMatch(new RegExp(`^${rotating.id} .* whsec_…${secret.slice(-4)}$`, 'm'));
    expect([verifies(request!, secret), verifies(request!, rotating.secret)], 'the ping verifies with the new and the old secret').toEqual([
      true,
      true,
    ]);
  });

  it('stats prints labelled fields ("n/a" with nothing to count), and --json parses', async () => {
    // Prepare
    const quiet = await endpoint('quiet');
    const busy = await endpoint('busy');
    const deliveryId = (await json(['webhooks', 'test', busy.id])).id as string;
    await waitFor(async () => (await json(['webhooks', 'stats', busy.id])).succeeded === 1, 20_000, `the statistics of ${deliveryId}`);
    // Act
    const empty = await secrets(['webhooks', 'stats', quiet.id]);
    const counted = await secrets(['webhooks', 'stats', busy.id, '--since', '2h']);
    const parsed = await json(['webhooks', 'stats', busy.id]);
    // Assess
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(
      /^deliveries: +0\nsucceeded: +0\nfailed: +0\npending: +0\nsuccess rate: +n\/a\np50 duration: +n\/a\np95 duration: +n\/a\nlast success: +never\nlast failure: +never$/m,
    );
    expect(counted.code, counted.stderr).toBe(0);
    expect(counted.stdout).toMatch(/^since: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    expect(counted.stdout).toMatch(
      /^deliveries: +1\nsucceeded: +1\nfailed: +0\npending: +0\nsuccess rate: +100%\np50 duration: +\d+ ms\np95 duration: +\d+ ms\nlast success: +\d{4}-\S+\nlast failure: +never$/m,
    );
    expect(parsed).toMatchObject({
      deliveries: 1,
      succeeded: 1,
      failed: 0,
      pending: 0,
      successRate: 1,
      p50DurationMs: expect.any(Number),
      lastFailureAt: null,
    });
  });

  it('recover --since 1h queues the failed deliveries of the last hour again, then none', async () => {
    // Prepare: three deliveries that failed half an hour ago
    const failing = await endpoint('failing');
    const failed = await failedDeliveries(ws.workspaceId, failing.id, 3, 1_800_000);
    // Act
    const recovered = await secrets(['webhooks', 'recover', failing.id, '--since', '1h']);
    await waitFor(async () => failed.every((d) => requestsOf(d.id).length > 0), 20_000, 'the recovered deliveries');
    const again = await json(['webhooks', 'recover', failing.id, '--since', '1h', '--until', new Date().toISOString()]);
    // Assess
    expect([recovered.code, recovered.stdout], recovered.stderr).toEqual([0, 'queued 3 failed deliveries\n']);
    expect(again).toEqual({ queued: 0 });
  });

  it('shows the API code and message: an unknown endpoint, a disabled one, a span the API refuses, a machine token', async () => {
    // Prepare
    const paused = await endpoint('paused');
    const spanned = await endpoint('spanned');
    await call('PATCH', `/api/v1/webhooks/${paused.id}`, { token: ws.apiKey, body: { enabled: false } });
    const machine = (await json(['access-keys', 'create', 'ci'])).token as string;
    // Act
    const listed = await secrets(['webhooks', 'list']);
    const unknown = await secrets(['webhooks', 'stats', UNKNOWN_ENDPOINT]);
    const disabled = await secrets(['webhooks', 'test', paused.id]);
    const tooOld = await secrets(['webhooks', 'recover', spanned.id, '--since', '20d']);
    const forbidden = await secrets(['webhooks', 'rotate-secret', paused.id], { SECRETS_TOKEN: machine });
    // Assess
    expect(listed.stdout).toMatch(new RegExp(`^${paused.id} +\\S+ +service\\.secret\\.delete +no +0 `, 'm'));
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringMatching(/^secrets: NOT_FOUND: /)]);
    expect([disabled.code, disabled.stderr]).toEqual([3, expect.stringMatching(/^secrets: ENDPOINT_DISABLED: /)]);
    expect([tooOld.code, tooOld.stderr]).toEqual([3, expect.stringMatching(/^secrets: VALIDATION_ERROR: .*14 days/)]);
    expect([forbidden.code, forbidden.stderr, forbidden.stdout]).toEqual([3, expect.stringMatching(/^secrets: FORBIDDEN: /), '']);
  });

  it('refuses a bad flag with a usage error naming it, before any request', async () => {
    // Prepare: an API that cannot be reached, so a request would end in exit status 4, not 2
    const offline = { SECRETS_API_URL: 'http://127.0.0.1:9' };
    // Act
    const answers = await Promise.all([
      secrets(['webhooks', 'rotate-secret', UNKNOWN_ENDPOINT, '--expire-current-in-hours', '1.5'], offline),
      secrets(['webhooks', 'rotate-secret', UNKNOWN_ENDPOINT, '--expire-current-in-hours', '49'], offline),
      secrets(['webhooks', 'recover', UNKNOWN_ENDPOINT, '--since', 'yesterday'], offline),
      secrets(['webhooks', 'recover', UNKNOWN_ENDPOINT, '--since', '1h', '--until', '2026-13-45'], offline),
      secrets(['webhooks', 'stats', UNKNOWN_ENDPOINT, '--since', '1w'], offline),
      secrets(['webhooks', 'recover', UNKNOWN_ENDPOINT], offline),
    ]);
    // Assess
    const flags = ['--expire-current-in-hours', '--expire-current-in-hours', '--since', '--until', '--since', '--since'];
    expect(answers.map((a) => a.code)).toEqual([2, 2, 2, 2, 2, 2]);
    answers.forEach((answer, i) => expect(answer.stderr).toContain(`option '${flags[i]} <`));
    expect(answers[0]!.stderr).toContain('expected a whole number of hours from 0 to 48');
    expect(answers[2]!.stderr).toContain('expected an ISO time');
  });

  it('has an example in the --help of the group and of each command', async () => {
    // Act
    const helps = await Promise.all(
      [[], ['list'], ['test'], ['recover'], ['rotate-secret'], ['stats']].map((command) => secrets(['webhooks', ...command, '--help'])),
    );
    const root = await secrets(['--help']);
    // Assess
    for (const help of helps)
      expect([help.code, help.stdout]).toEqual([
        0,
        expect.stringMatching(/\nExamples?: secrets webhooks |\nExamples: NEW=\$\(secrets webhooks rotate-secret/),
      ]);
    expect(root.stdout).toMatch(/^ +webhooks /m);
  });
});
