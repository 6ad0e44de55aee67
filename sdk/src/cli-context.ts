import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { refuseInsecureBaseUrl } from './base-url.js';
import { AUTH_METHODS, CredentialError, resolveCredential, type AuthFlags, type Credential } from './cli-auth.js';
import { sessionFetch, sessionToken } from './cli-session.js';
import { createClient } from './client.js';
import { ApiError } from './errors.js';

/** Exit statuses of `secrets` (documented in `--help`). */
export const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3, unreachable: 4 } as const;

/** A command-line mistake: printed with a hint, exit status 2. */
export class UsageError extends Error {}

export interface Connection extends AuthFlags {
  apiUrl?: string;
  project?: string;
  env?: string;
}

/**
 * Adds the connection options to a command (`--api-url`, `--token` or `--access-key-id` with `--auth` and what the
 * login needs; `token: false` leaves out `--token`, for `secrets login`) and the target options it uses: a command
 * takes them after its name (`secrets get KEY --env prod`), the root before it (`secrets --env prod get KEY`).
 */
export function connectionOptions(
  command: Command,
  target: { project?: boolean; env?: boolean; token?: boolean; login?: boolean } = {},
): Command {
  command.option('--api-url <url>', 'the API base URL (SECRETS_API_URL)');
  if (target.token !== false) command.option('--token <token>', 'an API key, machine token or access token (SECRETS_TOKEN)');
  if (target.login === false) {
    // A command whose own --auth names something else (the kind of key `access-keys create` makes): it is run with a
    // token, never by an access key that logs in (those may not manage keys), and its --auth is not the connection's.
    OWN_AUTH.add(command);
  } else addLoginOptions(command);
  if (target.project) command.option('--project <slug>', 'the project (SECRETS_PROJECT, or .secrets.json)');
  if (target.env) command.option('--env <slug>', 'the environment (SECRETS_ENV, or .secrets.json)');
  return command;
}

/** Commands whose `--auth` is their own, not how the CLI logs in (left out of the connection's options). */
const OWN_AUTH = new WeakSet<Command>();

/** A command's options as connection options: its own `--auth`, if it has one, is not the connection's. */
export function connectionOptsOf(command: Command): Connection {
  const opts = command.opts<Connection>();
  if (!OWN_AUTH.has(command)) return opts;
  const { auth: _own, ...rest } = opts;
  return rest as Connection;
}

function addLoginOptions(command: Command): void {
  command
    .option('--access-key-id <id>', 'instead of --token: an access key (ak_…) that logs in with --auth (SECRETS_ACCESS_KEY_ID)')
    .addOption(
      new Option('--auth <method>', "how --access-key-id logs in: the AWS SDK's credentials, or an OIDC token (SECRETS_AUTH)").choices([
        ...AUTH_METHODS,
      ]),
    )
    .option(
      '--oidc-token-file <path>',
      'with --auth oidc: a file holding the token (SECRETS_OIDC_TOKEN_FILE; or SECRETS_OIDC_TOKEN, or GitHub Actions)',
    )
    .option('--oidc-audience <aud>', "with --auth oidc in GitHub Actions: the token's audience (SECRETS_OIDC_AUDIENCE)")
    .option('--server-id <id>', "with --auth aws-iam: the service's server id (SECRETS_SERVER_ID; default the API URL's host and port)");
}

/** The nearest `.secrets.json` ({project, env}) in this folder or a parent, as `secrets setup` writes it. */
function findSetup(from = process.cwd()): { project?: string; env?: string } {
  for (let folder = resolve(from); ; folder = dirname(folder)) {
    const file = join(folder, '.secrets.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { project?: string; env?: string };
    if (dirname(folder) === folder) return {};
  }
}

/** The SDK's base URL rule, as a usage error naming where the URL came from (exit status 2, before any request). */
export function checkApiUrl(apiUrl: string): void {
  try {
    refuseInsecureBaseUrl(apiUrl);
  } catch (error) {
    throw new UsageError(`--api-url / SECRETS_API_URL: ${(error as Error).message}`);
  }
}

/**
 * The credential of the flags and environment, as a usage error when it cannot be resolved; with `apiUrl`, the
 * session of `secrets login --sso` for that API is the last source (`session.used` then says it was the one taken).
 */
export function credentialOf(
  flags: Connection,
  options: { accessKeyOnly?: boolean; apiUrl?: string; session?: { used: boolean } } = {},
): Credential {
  const { apiUrl, session, ...rest } = options;
  const stored = (url: string) => () => {
    const token = sessionToken(url);
    if (session) session.used = token !== undefined;
    return token;
  };
  try {
    return resolveCredential(flags, process.env, { ...rest, ...(apiUrl ? { stored: stored(apiUrl) } : {}) });
  } catch (error) {
    throw error instanceof CredentialError ? new UsageError(error.message) : error;
  }
}

/**
 * The API and the credential alone, flags first, then the environment variables (for commands that name no target).
 * `token` is undefined when the client logs in (`--access-key-id`): it has no token of its own until it does.
 */
export function resolveApi(flags: Connection) {
  const apiUrl = flags.apiUrl ?? process.env.SECRETS_API_URL;
  if (!apiUrl) throw new UsageError('the API URL is required: --api-url or SECRETS_API_URL');
  checkApiUrl(apiUrl);
  const session = { used: false };
  const credential = credentialOf(flags, { apiUrl, session });
  let client: ReturnType<typeof createClient>;
  try {
    // The session's token is renewed, when it can be, before a request would carry one about to expire.
    client = createClient({ baseUrl: apiUrl, ...credential, ...(session.used ? { fetch: sessionFetch(apiUrl) } : {}) });
  } catch (error) {
    // The client's own refusals (an IAM login without an STS endpoint) are settings the user gave.
    throw error instanceof TypeError ? new UsageError(error.message) : error;
  }
  return { apiUrl, token: credential.token, client };
}

export type ApiContext = ReturnType<typeof resolveApi>;

/** The target's slugs: flags first, then the environment variables, then `.secrets.json`. */
function resolveTarget(flags: Connection): { project?: string | undefined; env?: string | undefined } {
  let project = flags.project ?? process.env.SECRETS_PROJECT;
  let env = flags.env ?? process.env.SECRETS_ENV;
  // .secrets.json is read only when it is needed (a broken one must not stop a fully flagged command).
  if (!project || !env) {
    const setup = findSetup();
    project ??= setup.project;
    env ??= setup.env;
  }
  return { project, env };
}

/** The connection and the target project and environment (commands that read or write secrets). */
export function resolveConnection(flags: Connection) {
  const { project, env } = resolveTarget(flags);
  const api = resolveApi(flags);
  if (!project || !env)
    throw new UsageError('the target is required: --project and --env, SECRETS_PROJECT and SECRETS_ENV, or `secrets setup`');
  return { ...api, project, env };
}

/** The connection and the target project alone (commands about a project's environments). */
export function resolveProject(flags: Connection) {
  const { project } = resolveTarget(flags);
  const api = resolveApi(flags);
  if (!project) throw new UsageError('the project is required: --project, SECRETS_PROJECT, or `secrets setup`');
  return { ...api, project };
}

export type Context = ReturnType<typeof resolveConnection>;

/** The environment's id, by its project's and its own slug. */
export async function environmentId(ctx: Context): Promise<string> {
  return (await ctx.client.environment(ctx.project, ctx.env)).id;
}

/** Every secret of the environment (key, id, version; never a value). */
export async function listSecrets(ctx: Context, envId: string) {
  return Array.fromAsync(
    ctx.client.paginate((cursor) =>
      ctx.client.api.GET('/api/v1/environments/{envId}/secrets', {
        params: { path: { envId }, query: { limit: '200', ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );
}

/** The id of the secret `key` in the target environment, or NOT_FOUND. */
export async function secretId(ctx: Context, key: string): Promise<string> {
  const found = (await listSecrets(ctx, await environmentId(ctx))).find((secret) => secret.key === key);
  if (!found) throw new ApiError(404, 'NOT_FOUND', `no secret ${key} in ${ctx.project}/${ctx.env}`);
  return found.id;
}

/**
 * Whether a failure means the API could not be reached: fetch reports an unreachable server as a TypeError (its
 * `cause` says why), a timed-out attempt as a TimeoutError. Anything else is not, and never opens the snapshot.
 */
export function isUnreachable(error: unknown): error is Error {
  const name = (error as Error | undefined)?.name;
  return (
    (error instanceof TypeError && (error as { cause?: unknown }).cause !== undefined) || name === 'TimeoutError' || name === 'AbortError'
  );
}

/** Prints a failure on stderr and answers the exit status: the API's code and message, or what went wrong. */
export function report(error: unknown): number {
  // A CredentialError reaching here is the SSO session's, found expired when a request was about to carry it.
  if (error instanceof UsageError || error instanceof CredentialError) {
    process.stderr.write(`secrets: ${error.message}\nRun \`secrets --help\` for usage.\n`);
    return EXIT.usage;
  }
  if (error instanceof ApiError) {
    process.stderr.write(`secrets: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}\n`);
    for (const line of [...referenceProblems(error), ...staleKeys(error), ...reviewHint(error)]) process.stderr.write(`secrets: ${line}\n`);
    return error.status >= 500 ? EXIT.unreachable : EXIT.refused;
  }
  if (isUnreachable(error)) {
    process.stderr.write(`secrets: the API could not be reached: ${describe(error)}\n`);
    return EXIT.unreachable;
  }
  process.stderr.write(`secrets: ${(error as Error).message}\n`);
  return EXIT.failed;
}

/**
 * A reveal's (or a load's) references that could not be resolved, one line each as written in the value:
 * `${DB_HOST}: unresolvable`. Other details (a merge's stale keys) are not references and give no line here.
 */
function referenceProblems(error: ApiError): string[] {
  return (error.details ?? []).flatMap((detail) =>
    typeof detail.reference === 'string' && typeof detail.reason === 'string' ? [`\${${detail.reference}}: ${detail.reason}`] : [],
  );
}

/** A merge's stale keys (written since the change request was proposed), one line each: `A1: proposed on version 1, now 2`. */
function staleKeys(error: ApiError): string[] {
  return (error.details ?? []).flatMap((detail) =>
    typeof detail.key === 'string' && typeof detail.baseVersion === 'number' && typeof detail.currentVersion === 'number'
      ? [`${detail.key}: proposed on version ${detail.baseVersion}, now version ${detail.currentVersion}`]
      : [],
  );
}

/**
 * The way on when a write is refused because its environment requires review: every refused write of every command
 * reaches here, so the hint is given once for all of them (decisions.md v1.4, "Change requests").
 */
function reviewHint(error: ApiError): string[] {
  if (error.code !== 'REVIEW_REQUIRED') return [];
  return [
    'propose the change for review instead: secrets set KEY=VALUE --propose TITLE, or secrets delete KEY --propose TITLE',
    '(then secrets change-requests --help)',
  ];
}

/** A network failure with its cause (fetch's own message, "fetch failed", says nothing on its own). */
export function describe(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${error.message} (${cause.code ?? cause.message})` : error.message;
}
