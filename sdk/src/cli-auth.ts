/**
 * The CLI's credential: a token (`--token` / SECRETS_TOKEN), or an access key that logs in with a workload identity
 * (`--access-key-id` / SECRETS_ACCESS_KEY_ID with `--auth aws-iam|oidc` / SECRETS_AUTH), flags before environment
 * variables (decisions.md, "Workload identity"). A conflict or a missing piece is a usage error naming the options.
 */
import { readFileSync } from 'node:fs';
import type { AuthOptions } from './login.js';

/** The credential flags, as commander parses them. */
export interface AuthFlags {
  token?: string;
  accessKeyId?: string;
  auth?: string;
  oidcTokenFile?: string;
  oidcAudience?: string;
  serverId?: string;
}

/** The `--auth` methods, as the CLI spells them. */
export const AUTH_METHODS = ['aws-iam', 'oidc'] as const;

export type Credential = { token: string; auth?: undefined } | { auth: AuthOptions; token?: undefined };

/** A credential that cannot be resolved; the caller turns it into its usage error. */
export class CredentialError extends Error {}

/** An environment variable, an empty one counting as unset. */
const variable = (env: NodeJS.ProcessEnv, name: string) => env[name] || undefined;

/** How a command's credential may be found besides its flags and variables. */
export interface CredentialOptions {
  /** `secrets login`: only an access key counts. */
  accessKeyOnly?: boolean;
  /** The last source, when nothing else gives a credential: the session of `secrets login --sso` (cli-session.ts). */
  stored?: () => string | undefined;
}

/**
 * The token or the login of a command, flags first: `--token` with `--access-key-id` or `--auth` is a conflict, and
 * so are SECRETS_TOKEN and SECRETS_ACCESS_KEY_ID when no flag chooses (for `secrets login`, `accessKeyOnly`, only
 * the access key counts); with none of them, the stored session. Throws CredentialError.
 */
export function resolveCredential(flags: AuthFlags, env: NodeJS.ProcessEnv = process.env, options: CredentialOptions = {}): Credential {
  if (flags.token !== undefined && (flags.accessKeyId !== undefined || flags.auth !== undefined)) {
    throw new CredentialError('--token conflicts with --access-key-id and --auth: give a token or an access key that logs in, not both');
  }
  if (flags.token !== undefined) {
    if (options.accessKeyOnly) throw new CredentialError('login takes --access-key-id with --auth, not --token (a token needs no login)');
    return { token: flags.token };
  }
  const accessKeyId = flags.accessKeyId ?? variable(env, 'SECRETS_ACCESS_KEY_ID');
  const token = flags.accessKeyId === undefined && !options.accessKeyOnly ? variable(env, 'SECRETS_TOKEN') : undefined;
  if (flags.auth !== undefined && accessKeyId === undefined)
    throw new CredentialError('--auth needs --access-key-id (or SECRETS_ACCESS_KEY_ID)');
  if (accessKeyId !== undefined && token !== undefined) {
    throw new CredentialError('SECRETS_TOKEN and SECRETS_ACCESS_KEY_ID are both set: unset one, or choose with --token or --access-key-id');
  }
  if (accessKeyId === undefined) {
    const found = token ?? (options.accessKeyOnly ? undefined : options.stored?.());
    if (found === undefined) {
      throw new CredentialError(
        options.accessKeyOnly
          ? 'an access key is required: --access-key-id or SECRETS_ACCESS_KEY_ID, with --auth'
          : "a credential is required: --token or SECRETS_TOKEN, or --access-key-id with --auth (SECRETS_ACCESS_KEY_ID, SECRETS_AUTH), or a person's session of `secrets login --sso`",
      );
    }
    return { token: found };
  }
  return { auth: loginOf(accessKeyId, flags, env) };
}

/** The login of an access key: its method, and what that method needs. */
function loginOf(accessKeyId: string, flags: AuthFlags, env: NodeJS.ProcessEnv): AuthOptions {
  const method = flags.auth ?? variable(env, 'SECRETS_AUTH');
  if (method === undefined) throw new CredentialError('--access-key-id needs --auth aws-iam or --auth oidc (or SECRETS_AUTH)');
  if (method !== 'aws-iam' && method !== 'oidc') throw new CredentialError(`SECRETS_AUTH must be ${AUTH_METHODS.join(' or ')}`);
  if (method === 'aws-iam') {
    if (flags.oidcTokenFile !== undefined || flags.oidcAudience !== undefined)
      throw new CredentialError('--oidc-token-file and --oidc-audience go with --auth oidc, not aws-iam');
    const serverId = flags.serverId ?? variable(env, 'SECRETS_SERVER_ID');
    return { accessKeyId, method: 'aws_iam', ...(serverId === undefined ? {} : { serverId }) };
  }
  if (flags.serverId !== undefined) throw new CredentialError('--server-id goes with --auth aws-iam, not oidc');
  return { accessKeyId, method: 'oidc', jwt: oidcTokenSource(flags, env) };
}

/**
 * Where the OIDC token comes from, in this order: `--oidc-token-file` / SECRETS_OIDC_TOKEN_FILE (read at each login,
 * so a rotated file is picked up), SECRETS_OIDC_TOKEN, or GitHub Actions' token request (`permissions: id-token:
 * write`) for `--oidc-audience` / SECRETS_OIDC_AUDIENCE (GitHub's default audience without one).
 */
export function oidcTokenSource(flags: AuthFlags, env: NodeJS.ProcessEnv = process.env): string | (() => Promise<string>) {
  const file = flags.oidcTokenFile ?? variable(env, 'SECRETS_OIDC_TOKEN_FILE');
  if (file !== undefined) return async () => readTokenFile(file);
  const token = variable(env, 'SECRETS_OIDC_TOKEN');
  if (token !== undefined) return token;
  const requestUrl = variable(env, 'ACTIONS_ID_TOKEN_REQUEST_URL');
  const requestToken = variable(env, 'ACTIONS_ID_TOKEN_REQUEST_TOKEN');
  if (requestUrl !== undefined && requestToken !== undefined) {
    const audience = flags.oidcAudience ?? variable(env, 'SECRETS_OIDC_AUDIENCE');
    return () => githubActionsToken(requestUrl, requestToken, audience);
  }
  throw new CredentialError(
    '--auth oidc needs a token: --oidc-token-file, SECRETS_OIDC_TOKEN_FILE, SECRETS_OIDC_TOKEN, or GitHub Actions with permissions: id-token: write',
  );
}

/** The token of a file (a Kubernetes projected token, a CI's token file), without surrounding white space. */
function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`--oidc-token-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * An OIDC token of GitHub Actions: GET the request URL with `&audience=…`, `Authorization: bearer <request token>`,
 * answer `{value}`. The messages name the status only, never the request token or the URL (it is the runner's).
 */
export async function githubActionsToken(requestUrl: string, requestToken: string, audience: string | undefined): Promise<string> {
  // The runner's URL already carries a query (api-version): the audience is appended to it, the rest left as given.
  const url =
    audience === undefined ? requestUrl : `${requestUrl}${requestUrl.includes('?') ? '&' : '?'}audience=${encodeURIComponent(audience)}`;
  const response = await fetch(url, {
    headers: { authorization: `bearer ${requestToken}`, accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok)
    throw new Error(
      `GitHub Actions refused the OIDC token request (HTTP ${response.status}); does the job have permissions: id-token: write?`,
    );
  const { value } = ((await response.json().catch(() => ({}))) ?? {}) as { value?: unknown };
  if (typeof value !== 'string' || value === '') throw new Error('GitHub Actions answered no OIDC token');
  return value;
}
