import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newWorkspace } from '../../support/api.ts';
import { cliJson, runCli } from '../../support/cli.ts';

/**
 * `secrets audit-streams …` against the local stack (decisions.md v1.4, "Audit streams and tamper evidence"): the
 * API takes what the CLI sends for each type, and no credential is ever printed. Credentials are compared as
 * booleans, so a failing assertion never prints one.
 */
describe('the secrets CLI: audit streams', () => {
  const HEADER = 'Bearer CliStreamHeader0123456789';
  const TOKEN = 'CliSplunkToken-0123456789abcdef';
  const API_KEY = 'abcdef0123456789abcdef0123456789';
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let folder: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    folder = mkdtempSync(join(tmpdir(), 'cli-streams-'));
  });

  /** Runs `secrets audit-streams …` with the workspace's API key, `stdin` as its input. */
  const secrets = (args: string[], stdin = '', env: Record<string, string | undefined> = {}) =>
    runCli(['audit-streams', ...args], {
      cwd: folder,
      stdin,
      env: { ...process.env, SECRETS_API_URL: inject('stack').baseUrl, SECRETS_TOKEN: ws.apiKey, XDG_CACHE_HOME: folder, ...env },
    });
  const printed = (run: { stdout: string; stderr: string }) => run.stdout + run.stderr;
  const leaks = (text: string) => [HEADER, TOKEN, API_KEY].some((credential) => text.includes(credential));

  it('creates a stream of each type, tests, lists, disables and deletes them, and never prints a credential', {
    timeout: 60_000,
  }, async () => {
    // Act: one stream of each type, credentials from the environment and stdin
    const https = await secrets(
      ['create', '--type', 'https', '--url', 'https://127.0.0.1:9/audit', '--header-env', 'Authorization=SIEM'],
      '',
      {
        SIEM: HEADER,
      },
    );
    const splunk = await secrets(['create', '--type', 'splunk-hec', '--url', 'https://127.0.0.1:9/collector', '--token-stdin'], TOKEN);
    const datadog = await secrets(['create', '--type', 'datadog', '--site', 'datadoghq.eu', '--api-key-stdin'], API_KEY);
    // Assess: the https stream's secret alone on stdout; the others' ids
    expect([https.code, splunk.code, datadog.code], https.stderr + splunk.stderr + datadog.stderr).toEqual([0, 0, 0]);
    expect(https.stdout).toMatch(/^whsec_\S+\n$/);
    expect(https.stderr).toContain('shown only this once');
    expect(splunk.stdout).toMatch(/^as_\w+\n$/);
    const listed = cliJson(await secrets(['list', '--json']));
    expect(listed.map((s: { type: string }) => s.type).sort()).toEqual(['datadog', 'https', 'splunk-hec']);

    // Act + Assess: a test entry sent to a url nothing listens at is not delivered: exit 1, and why
    const tested = await secrets(['test', splunk.stdout.trim()]);
    expect(tested.code, tested.stderr).toBe(1);
    expect(tested.stdout).toMatch(/delivered:\s+no/);

    // Act: disable one, show it, delete it
    const id = splunk.stdout.trim();
    const disabled = await secrets(['update', id, '--disable']);
    const shown = await secrets(['show', id]);
    const deleted = await secrets(['delete', id]);
    // Assess
    expect([disabled.code, shown.code, deleted.code]).toEqual([0, 0, 0]);
    expect(shown.stdout).toMatch(/status:\s+disabled/);
    const table = await secrets(['list']);
    expect(table.stdout).toContain('datadog:datadoghq.eu');
    expect(table.stdout).not.toContain(id);
    const all = [https, splunk, datadog, tested, disabled, shown, deleted, table].map(printed).join('');
    expect(leaks(all), 'a credential was printed').toBe(false);
  });

  it("a refusal of the API (an http url) exits 3 with the API's code and message", async () => {
    const refused = await secrets(['create', '--type', 'https', '--url', 'http://127.0.0.1:9/audit']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/url: must use https/);
  });
});
