import { Option, type Command } from 'commander';
import type { operations } from './api.js';
import { connectionOptions, resolveApi, UsageError, type Connection } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';

type Stream = operations['getAuditStream']['responses'][200]['content']['application/json']['data'];
type NewStream = operations['createAuditStream']['requestBody']['content']['application/json'];
type StreamPatch = operations['updateAuditStream']['requestBody']['content']['application/json'];

interface CredentialFlags {
  url?: string;
  header?: string[];
  headerEnv?: string[];
  tokenStdin?: boolean;
  apiKeyStdin?: boolean;
  site?: string;
  json?: boolean;
}

/** The environment variables a Splunk token and a Datadog API key are read from when stdin is not named. */
const TOKEN_ENV = 'SECRETS_STREAM_TOKEN';
const API_KEY_ENV = 'SECRETS_STREAM_API_KEY';

/**
 * A credential from stdin (`--token-stdin`, `--api-key-stdin`), else from `envName`: never from the command line,
 * where `ps` and the shell's history see it. `required` false answers undefined when neither holds one (an update).
 */
async function readCredential(
  flag: string,
  fromStdin: boolean | undefined,
  envName: string,
  required: boolean,
): Promise<string | undefined> {
  if (!fromStdin) {
    const value = process.env[envName]?.trim();
    if (!value && required) throw new UsageError(`the stream needs its credential: --${flag}, or ${envName}`);
    return value || undefined;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').trim();
  if (!value) throw new UsageError(`--${flag}: stdin held nothing`);
  return value;
}

/**
 * The headers of `--header NAME=VALUE` and `--header-env NAME=VAR` (the value read from the variable VAR, for an
 * Authorization header that should stay off the command line); undefined when neither flag is given.
 */
function headersOf(flags: CredentialFlags): Record<string, string> | undefined {
  if (!flags.header?.length && !flags.headerEnv?.length) return undefined;
  const split = (flag: string, text: string) => {
    const at = text.indexOf('=');
    // Only the name is echoed back: text without an = may be a value, a credential pasted where its name belonged.
    if (at <= 0) throw new UsageError(`${flag}: expected NAME=${flag === '--header' ? 'VALUE' : 'VAR'}`);
    if (at === text.length - 1) throw new UsageError(`${flag} ${text.slice(0, at)}: the value is empty`);
    return [text.slice(0, at), text.slice(at + 1)] as const;
  };
  const headers: Record<string, string> = {};
  for (const text of flags.header ?? []) {
    const [name, value] = split('--header', text);
    headers[name] = value;
  }
  for (const text of flags.headerEnv ?? []) {
    const [name, variable] = split('--header-env', text);
    const value = process.env[variable];
    if (!value) throw new UsageError(`--header-env ${name}=${variable}: ${variable} is not set`);
    headers[name] = value;
  }
  return headers;
}

/** The new stream the flags describe: each type with the fields it needs, its credentials from stdin or the environment. */
async function streamOf(type: NewStream['type'], flags: CredentialFlags): Promise<NewStream> {
  const needUrl = () => {
    if (flags.url === undefined) throw new UsageError(`--type ${type} needs --url`);
    return flags.url;
  };
  if (type === 'https') {
    const headers = headersOf(flags);
    return { type, url: needUrl(), ...(headers && { headers }) };
  }
  if (type === 'splunk-hec') {
    const url = needUrl();
    return { type, url, token: (await readCredential('token-stdin', flags.tokenStdin, TOKEN_ENV, true))! };
  }
  if (flags.site === undefined) throw new UsageError('--type datadog needs --site (datadoghq.com, datadoghq.eu, …)');
  const apiKey = (await readCredential('api-key-stdin', flags.apiKeyStdin, API_KEY_ENV, true))!;
  return { type, site: flags.site as Extract<NewStream, { type: 'datadog' }>['site'], apiKey };
}

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

/** A repeatable option's values, in the order given (not variadic, so it never swallows the stream id after it). */
const collect = (value: string, previous: string[] = []) => [...previous, value];

const credentialOptions = (command: Command) =>
  command
    .option('--url <url>', 'https, splunk-hec: the https URL to deliver to')
    .option('--header <name=value>', 'https: a header sent with each batch (repeatable)', collect)
    .option(
      '--header-env <name=var>',
      'https: a header whose value is read from the environment variable VAR (repeatable; for credentials)',
      collect,
    )
    .option('--token-stdin', `splunk-hec: read the HEC token from stdin (else ${TOKEN_ENV}; never an argument)`)
    .option('--api-key-stdin', `datadog: read the API key from stdin (else ${API_KEY_ENV}; never an argument)`)
    .option('--site <site>', 'datadog: the site (datadoghq.com, datadoghq.eu, us3.datadoghq.com, …)');

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

/** The PATCH the update flags describe; a usage error when they contradict each other or change nothing. */
async function patchOf(flags: CredentialFlags & { clearHeaders?: boolean; disable?: boolean; enable?: boolean }): Promise<StreamPatch> {
  if (flags.disable && flags.enable) throw new UsageError('--disable and --enable contradict each other');
  const headers = headersOf(flags);
  if (headers && flags.clearHeaders) throw new UsageError('--clear-headers and --header contradict each other');
  if (flags.tokenStdin && flags.apiKeyStdin) throw new UsageError('--token-stdin and --api-key-stdin: stdin holds one credential');
  const token = flags.tokenStdin ? await readCredential('token-stdin', true, TOKEN_ENV, true) : undefined;
  const apiKey = flags.apiKeyStdin ? await readCredential('api-key-stdin', true, API_KEY_ENV, true) : undefined;
  const patch: StreamPatch = {
    ...(flags.url !== undefined && { url: flags.url }),
    ...(headers && { headers }),
    ...(flags.clearHeaders && { headers: null }),
    ...(token !== undefined && { token }),
    ...(flags.site !== undefined && { site: flags.site as StreamPatch['site'] }),
    ...(apiKey !== undefined && { apiKey }),
    ...(flags.disable && { status: 'disabled' as const }),
    ...(flags.enable && { status: 'active' as const }),
  };
  if (Object.keys(patch).length === 0) throw new UsageError('update: nothing to change (see secrets audit-streams update --help)');
  return patch;
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

/** `secrets audit-streams create|list|show|update|delete` (decisions.md v1.4, "Audit streams and tamper evidence"): for admins. */
export function registerAuditStreams(cli: Command, connection: () => Connection): void {
  const group = cli
    .command('audit-streams')
    .description("stream the workspace's audit entries to an https receiver, Splunk HEC or Datadog: create, list, show, update, delete")
    .addHelpText(
      'after',
      [
        `\nA Splunk token or Datadog API key is read from stdin or ${TOKEN_ENV} / ${API_KEY_ENV}, never from an argument, and never shown again.`,
        '\nExamples: SECRET=$(secrets audit-streams create --type https --url https://siem.example/in)',
        '          secrets audit-streams list',
        '          secrets audit-streams update as_… --disable',
      ].join('\n'),
    );
  registerCreate(group, connection);
  registerReads(group, connection);
  registerUpdate(group, connection);
  registerDelete(group, connection);
}
