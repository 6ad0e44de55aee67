import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { InvalidArgumentError, type Command } from 'commander';
import { digestPeriodSeconds, type AuditDigest } from './audit-verify/digest-record.js';
import type { DigestedEntry } from './audit-verify/digest-canonical.js';
import { verifyAudit, type VerifyResult } from './audit-verify/digest-verify.js';
import { connectionOptions, resolveApi, UsageError, type Connection } from './cli-context.js';
import { unwrap } from './client.js';

/** An ISO 8601 time with its offset, as the API takes `since` and `until`. */
function isoTime(text: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new InvalidArgumentError('expected an ISO 8601 time with its offset, such as 2026-12-01T00:00:00Z');
  }
  return new Date(text).toISOString();
}

interface VerifyFlags {
  since: string;
  until?: string;
  from?: string;
}

type Api = ReturnType<typeof resolveApi>;

/** The workspace's entries and digests over the range, through the API (every page). */
async function fromApi(c: Api, since: string, until: string) {
  const range = { since, until, limit: '200' };
  const entries = await Array.fromAsync(
    c.client.paginate((cursor) => c.client.api.GET('/api/v1/audit', { params: { query: { ...range, ...(cursor ? { cursor } : {}) } } })),
  );
  const digests = await Array.fromAsync(
    c.client.paginate((cursor) =>
      c.client.api.GET('/api/v1/audit/digests', { params: { query: { ...range, ...(cursor ? { cursor } : {}) } } }),
    ),
  );
  return { entries: entries as DigestedEntry[], digests: digests as AuditDigest[] };
}

/**
 * The entries and digests of a copy of the audit bucket: `dir` holds one workspace's objects
 * (`<hourStart>.digest.json`, `<hourStart>.jsonl.gz`), or a bucket copy with exactly one workspace's folder.
 */
async function fromFolder(dir: string) {
  let folder = dir;
  let names = await readdir(folder).catch(() => {
    throw new UsageError(`--from ${dir}: no such folder`);
  });
  if (!names.some((name) => name.endsWith('.digest.json'))) {
    const workspaces = names.filter((name) => name.startsWith('ws_'));
    if (workspaces.length !== 1) throw new UsageError(`--from ${dir}: name one workspace's folder (found ${workspaces.length})`);
    folder = join(dir, workspaces[0]!);
    names = await readdir(folder);
  }
  const digests: AuditDigest[] = [];
  const entries: DigestedEntry[] = [];
  for (const name of names.sort()) {
    const bytes = await readFile(join(folder, name));
    if (name.endsWith('.digest.json')) digests.push(JSON.parse(bytes.toString('utf8')) as AuditDigest);
    if (name.endsWith('.jsonl.gz')) {
      const lines = gunzipSync(bytes).toString('utf8').split('\n').filter(Boolean);
      entries.push(...lines.map((line) => JSON.parse(line) as DigestedEntry));
    }
  }
  return { entries, digests };
}

/** The line a verification ends with: what was verified, or the first break and where. */
function verdictLine(result: VerifyResult): string {
  if (result.ok) return `verified ${result.entries} entries in ${result.digests} digests`;
  const where = [result.id, result.hourStart && `period ${result.hourStart}`].filter(Boolean).join(', ');
  return `${result.break}${where ? ` (${where})` : ''}`;
}

/** `secrets audit verify`: the audit log checked against its signed, chained digests with the public key alone. */
export function registerAudit(cli: Command, connection: () => Connection): void {
  const group = cli.command('audit').description("the workspace's audit log: verify it against its signed digests");
  connectionOptions(
    group
      .command('verify')
      .description(
        'check the entries, the chain and every signature with the public key alone: exit 0 when intact, 1 naming the first break',
      )
      .requiredOption('--since <time>', 'from this time (ISO 8601), rounded down to a digest period', isoTime)
      .option('--until <time>', 'to this time (default: now), rounded up to a digest period', isoTime)
      .option(
        '--from <dir>',
        'read entries and digests from a copy of the audit bucket instead of the API (the key still comes from the API)',
      ),
  )
    .addHelpText(
      'after',
      [
        '\nA digest covers an hour (or AUDIT_DIGEST_PERIOD_SECONDS, as the service sets it); periods not yet digested are not checked.',
        'Breaks: entry-changed, entry-missing, entry-added, digest-missing, digest-changed, chain-broken, bad-signature.',
        '\nExamples: secrets audit verify --since 2026-12-01T00:00:00Z',
        '          secrets audit verify --since 2026-12-01T00:00:00Z --from ./audit-bucket-copy',
      ].join('\n'),
    )
    .action(async (flags: VerifyFlags) => {
      const c = resolveApi(connection());
      const until = flags.until ?? new Date().toISOString();
      if (Date.parse(until) < Date.parse(flags.since)) throw new UsageError('--until: must not be before --since');
      const periodSeconds = digestPeriodSeconds(process.env.AUDIT_DIGEST_PERIOD_SECONDS);
      const { pem } = unwrap(await c.client.api.GET('/api/v1/audit/public-key'));
      const { entries, digests } = flags.from ? await fromFolder(flags.from) : await fromApi(c, flags.since, until);
      const result = verifyAudit({ publicKeyPem: pem, entries, digests, since: flags.since, until, periodSeconds });
      process.stdout.write(`${verdictLine(result)}\n`);
      if (!result.ok) process.exitCode = 1;
    });
}
