import { Option, type Command } from 'commander';
import type { operations } from './api.js';
import {
  API_KEY_ENV,
  credentialOptions,
  patchOf,
  streamOf,
  TOKEN_ENV,
  type CredentialFlags,
  type NewStream,
} from './cli-audit-stream-flags.js';
import { connectionOptions, EXIT, resolveApi, type Connection } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';

type Stream = operations['getAuditStream']['responses'][200]['content']['application/json']['data'];

/** Where a stream delivers, in one line. */
function placeOf(stream: Stream): string {
  return stream.type === 'datadog' ? `datadog:${stream.site}` : stream.url;
}

/** Why the last delivery failed, in one line (the receiver's status, or none when nothing answered). */
function errorOf(stream: Stream): string {
  const error = stream.lastError;
  return error ? `${error.statusCode ?? 'no answer'}: ${error.reason} (${error.at})` : '-';
}

function printStream(stream: Stream): void {
  printFields([
    ['id', stream.id],
    ['type', stream.type],
    [stream.type === 'datadog' ? 'site' : 'url', placeOf(stream)],
    ...(stream.type === 'https'
      ? ([
          ['headers', stream.headers.length ? stream.headers.join(', ') : '-'],
          ['secret', stream.secretHint],
        ] as [string, string][])
      : []),
    ['status', stream.status],
    ['last delivered', stream.lastDeliveredAt ?? '-'],
    ['failing since', stream.failingSince ?? '-'],
    ['last error', errorOf(stream)],
    ['created', stream.createdAt],
  ]);
}

function registerCreate(group: Command, connection: () => Connection): void {
  credentialOptions(
    connectionOptions(
      group
        .command('create')
        .description('stream every audit entry of the workspace to an https receiver, Splunk HEC or Datadog')
        .addOption(new Option('--type <type>', 'the receiver').choices(['https', 'splunk-hec', 'datadog']).makeOptionMandatory()),
    ),
  )
    .option('--json', 'the stream as JSON (an https stream: its signing secret included)')
    .addHelpText(
      'after',
      [
        "\nAn https stream's signing secret is printed alone on stdout, this once: store it (it verifies Service-Signature).",
        '\nExamples: SECRET=$(secrets audit-streams create --type https --url https://siem.example/in --header-env Authorization=SIEM_AUTH)',
        '          printf %s "$HEC_TOKEN" | secrets audit-streams create --type splunk-hec --url https://splunk.example:8088 --token-stdin',
        '          printf %s "$DD_API_KEY" | secrets audit-streams create --type datadog --site datadoghq.eu --api-key-stdin',
      ].join('\n'),
    )
    .action(async (flags: CredentialFlags & { type: NewStream['type'] }) => {
      const body = await streamOf(flags.type, flags);
      const c = resolveApi(connection());
      const made = unwrap(await c.client.api.POST('/api/v1/audit-streams', { body }));
      if (flags.json) return printJson(made);
      process.stderr.write(`secrets: audit stream ${made.id} to ${placeOf(made)} created\n`);
      if (made.type !== 'https') return void process.stdout.write(`${made.id}\n`);
      process.stderr.write(`secrets: its signing secret (${made.secretHint}) follows, shown only this once: store it now\n`);
      process.stdout.write(`${made.secret}\n`);
    });
}

function registerReads(group: Command, connection: () => Connection): void {
  connectionOptions(group.command('list').description("list the workspace's audit streams (never a credential)"))
    .option('--json', 'as JSON (an array of streams)')
    .addHelpText('after', '\nExamples: secrets audit-streams list\n          secrets audit-streams list --json')
    .action(async (flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/audit-streams', { params: { query: { limit: '200', ...(cursor ? { cursor } : {}) } } }),
        ),
      );
      if (flags.json) return printJson(all);
      const row = (s: Stream) => [s.id, s.type, s.status, placeOf(s), s.lastDeliveredAt ?? '-', s.lastError?.reason ?? ''];
      printTable(['ID', 'TYPE', 'STATUS', 'DESTINATION', 'LAST DELIVERED', 'LAST ERROR'], all.map(row), 'audit streams');
    });

  connectionOptions(
    group.command('show').description('print an audit stream: destination, status, last delivery and error').argument('<id>'),
  )
    .option('--json', 'as JSON (the API record)')
    .addHelpText('after', '\nExample: secrets audit-streams show as_…')
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const stream = unwrap(await c.client.api.GET('/api/v1/audit-streams/{id}', { params: { path: { id } } }));
      if (flags.json) return printJson(stream);
      printStream(stream);
    });
}

function registerUpdate(group: Command, connection: () => Connection): void {
  credentialOptions(
    connectionOptions(
      group.command('update').description("change an audit stream's destination or credentials, disable or enable it").argument('<id>'),
    ),
  )
    .option('--clear-headers', 'https: send no header of its own any more')
    .option('--disable', 'stop delivering to it')
    .option('--enable', 'deliver to it again')
    .option('--json', 'the stream as JSON')
    .addHelpText(
      'after',
      [
        '\n--header and --header-env replace every header the stream had. The type and the signing secret never change.',
        '\nExamples: secrets audit-streams update as_… --disable',
        '          printf %s "$HEC_TOKEN" | secrets audit-streams update as_… --token-stdin',
        '          secrets audit-streams update as_… --url https://siem.example/v2 --header X-Source=secrets',
      ].join('\n'),
    )
    .action(async (id: string, flags: Parameters<typeof patchOf>[0]) => {
      const body = await patchOf(flags);
      const c = resolveApi(connection());
      const stream = unwrap(await c.client.api.PATCH('/api/v1/audit-streams/{id}', { params: { path: { id } }, body }));
      if (flags.json) return printJson(stream);
      process.stderr.write(`${stream.id}: updated (${Object.keys(body).join(', ')}); status ${stream.status}\n`);
    });
}

function registerDelete(group: Command, connection: () => Connection): void {
  connectionOptions(group.command('delete').description('delete an audit stream: nothing more is delivered to it').argument('<id>'))
    .addHelpText('after', '\nExample: secrets audit-streams delete as_…')
    .action(async (id: string) => {
      const c = resolveApi(connection());
      unwrap(await c.client.api.DELETE('/api/v1/audit-streams/{id}', { params: { path: { id } } }));
      process.stderr.write(`${id}: deleted\n`);
    });
}

function registerTest(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('test')
      .description('send one audit entry (the audit_stream.test entry it writes) to a stream now and print what its receiver answered')
      .argument('<id>'),
  )
    .option('--json', 'the answer as JSON ({delivered, statusCode, error})')
    .addHelpText('after', '\nExit status 1 when the receiver did not take it.\n\nExample: secrets audit-streams test as_…')
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const answer = unwrap(await c.client.api.POST('/api/v1/audit-streams/{id}/test', { params: { path: { id } } }));
      if (flags.json) printJson(answer);
      else
        printFields([
          ['delivered', answer.delivered ? 'yes' : 'no'],
          ['status code', answer.statusCode === null ? '-' : String(answer.statusCode)],
          ['error', answer.error ?? '-'],
        ]);
      // A script checks the exit status: a receiver that refused the entry is a failure, whatever the API answered.
      if (!answer.delivered) process.exitCode = EXIT.failed;
    });
}

/** `secrets audit-streams create|list|show|update|delete|test` (decisions.md v1.4, "Audit streams and tamper evidence"): for admins. */
export function registerAuditStreams(cli: Command, connection: () => Connection): void {
  const group = cli
    .command('audit-streams')
    .description(
      "stream the workspace's audit entries to an https receiver, Splunk HEC or Datadog: create, list, show, update, delete, test",
    )
    .addHelpText(
      'after',
      [
        `\nA Splunk token or Datadog API key is read from stdin or ${TOKEN_ENV} / ${API_KEY_ENV}, never from an argument, and never shown again.`,
        '\nExamples: SECRET=$(secrets audit-streams create --type https --url https://siem.example/in)',
        '          secrets audit-streams list',
        '          secrets audit-streams update as_… --disable',
        '          secrets audit-streams test as_…',
      ].join('\n'),
    );
  registerCreate(group, connection);
  registerReads(group, connection);
  registerUpdate(group, connection);
  registerDelete(group, connection);
  registerTest(group, connection);
}
