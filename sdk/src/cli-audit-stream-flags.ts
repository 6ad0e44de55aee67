import type { Command } from 'commander';
import type { operations } from './api.js';
import { UsageError } from './cli-context.js';
import { readCredential } from './cli-credential.js';

/**
 * What `secrets audit-streams create` and `update` read from their flags: the stream's fields, its credentials from
 * stdin or the environment (never from an argument), and the PATCH of an update.
 */

export type NewStream = operations['createAuditStream']['requestBody']['content']['application/json'];
export type StreamPatch = operations['updateAuditStream']['requestBody']['content']['application/json'];

export interface CredentialFlags {
  url?: string;
  header?: string[];
  headerEnv?: string[];
  tokenStdin?: boolean;
  apiKeyStdin?: boolean;
  site?: string;
  json?: boolean;
}

/** The environment variables a Splunk token and a Datadog API key are read from when stdin is not named. */
export const TOKEN_ENV = 'SECRETS_STREAM_TOKEN';
export const API_KEY_ENV = 'SECRETS_STREAM_API_KEY';

/** A stream's credential from stdin or the environment (cli-credential.ts). */
const readStreamCredential = (flag: string, fromStdin: boolean | undefined, envName: string) =>
  readCredential(flag, fromStdin, envName, 'the stream needs its credential');

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
export async function streamOf(type: NewStream['type'], flags: CredentialFlags): Promise<NewStream> {
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
    return { type, url, token: await readStreamCredential('token-stdin', flags.tokenStdin, TOKEN_ENV) };
  }
  if (flags.site === undefined) throw new UsageError('--type datadog needs --site (datadoghq.com, datadoghq.eu, …)');
  const apiKey = await readStreamCredential('api-key-stdin', flags.apiKeyStdin, API_KEY_ENV);
  return { type, site: flags.site as Extract<NewStream, { type: 'datadog' }>['site'], apiKey };
}

/** A repeatable option's values, in the order given (not variadic, so it never swallows the stream id after it). */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The flags of a stream's fields and credentials, as create and update both take them. */
export const credentialOptions = (command: Command) =>
  command
    .option('--url <url>', 'https, splunk-hec: the https URL to deliver to')
    .option('--header <name=value>', 'https: a header sent with each batch (repeatable)', collect)
    .option(
      '--header-env <name=var>',
      'https: a header whose value is read from the environment variable VAR (repeatable; for credentials)',
      collect,
    )
    .option('--token-stdin', `splunk-hec: read the HEC token from stdin (create: else ${TOKEN_ENV}; never an argument)`)
    .option('--api-key-stdin', `datadog: read the API key from stdin (create: else ${API_KEY_ENV}; never an argument)`)
    .option('--site <site>', 'datadog: the site (datadoghq.com, datadoghq.eu, us3.datadoghq.com, …)');

/** The PATCH the update flags describe; a usage error when they contradict each other or change nothing. */
export async function patchOf(
  flags: CredentialFlags & { clearHeaders?: boolean; disable?: boolean; enable?: boolean },
): Promise<StreamPatch> {
  if (flags.disable && flags.enable) throw new UsageError('--disable and --enable contradict each other');
  const headers = headersOf(flags);
  if (headers && flags.clearHeaders) throw new UsageError('--clear-headers and --header contradict each other');
  if (flags.tokenStdin && flags.apiKeyStdin) throw new UsageError('--token-stdin and --api-key-stdin: stdin holds one credential');
  // stdin only: a variable left set in the shell must not replace a stream's credential unasked.
  const token = flags.tokenStdin ? await readStreamCredential('token-stdin', true, TOKEN_ENV) : undefined;
  const apiKey = flags.apiKeyStdin ? await readStreamCredential('api-key-stdin', true, API_KEY_ENV) : undefined;
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
