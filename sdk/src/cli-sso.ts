import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { checkApiUrl, UsageError, type Connection } from './cli-context.js';
import { apiIdentity, removeSession, saveSession, sessionPath } from './cli-session.js';
import { SsoError, ssoLogin } from './sso.js';

/**
 * `secrets login --sso` and `secrets logout`: a person signs in with the identity provider through their browser
 * (authorization code + PKCE on a loopback redirect, sso.ts), and every later command uses the access token kept in
 * the user's config folder (cli-session.ts) until it expires, renewed with the refresh token when the provider gave
 * one.
 */

/** The flags of `secrets login` that the SSO sign-in reads. */
export interface SsoFlags {
  sso?: boolean;
  issuer?: string;
  clientId?: string;
  resource?: string;
  open?: boolean;
}

/** The access-key flags, which `--sso` does not take. */
const ACCESS_KEY_FLAGS = ['accessKeyId', 'auth', 'oidcTokenFile', 'oidcAudience', 'serverId'] as const;

/** Adds the SSO flags to `secrets login`. */
export function ssoOptions(command: Command): Command {
  return command
    .option('--sso', 'sign in as a person with the identity provider, in a browser; the token is kept for later commands')
    .option('--issuer <url>', 'with --sso: the identity provider (SECRETS_SSO_ISSUER; discovery at <url>/.well-known/openid-configuration)')
    .option('--client-id <id>', "with --sso: the CLI's OAuth client id at the provider, a public native client (SECRETS_SSO_CLIENT_ID)")
    .option('--resource <uri>', 'with --sso: the resource indicator (RFC 8707) the provider issues API tokens for (SECRETS_SSO_RESOURCE)')
    .option('--open', 'with --sso: open the sign-in address in the default browser');
}

/** What `--sso` needs, from the flags and then the environment; a missing piece or a conflict is a usage error. */
function settingsOf(flags: Connection & SsoFlags) {
  const given = ACCESS_KEY_FLAGS.filter((name) => flags[name] !== undefined);
  if (given.length) throw new UsageError('--sso signs a person in: it takes no --access-key-id, --auth or their options');
  const apiUrl = flags.apiUrl ?? process.env.SECRETS_API_URL;
  const issuer = flags.issuer ?? (process.env.SECRETS_SSO_ISSUER || undefined);
  const clientId = flags.clientId ?? (process.env.SECRETS_SSO_CLIENT_ID || undefined);
  const resource = flags.resource ?? (process.env.SECRETS_SSO_RESOURCE || undefined);
  if (!apiUrl) throw new UsageError('the API URL is required: --api-url or SECRETS_API_URL (the session is kept for that API alone)');
  checkApiUrl(apiUrl);
  if (!issuer) throw new UsageError('--sso needs the identity provider: --issuer or SECRETS_SSO_ISSUER');
  if (!clientId) throw new UsageError("--sso needs the CLI's client id at the identity provider: --client-id or SECRETS_SSO_CLIENT_ID");
  return { apiUrl, issuer, clientId, resource };
}

/** Opens `url` in the default browser, never through a shell; a failure only says to open it by hand. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write('secrets: no browser could be opened: open the address above yourself\n'));
  child.unref();
}

/**
 * `secrets login --sso`: the sign-in in a browser, then the session saved (mode 600). Messages go to stderr; the
 * token is printed nowhere.
 */
export async function logInWithSso(flags: Connection & SsoFlags): Promise<void> {
  const settings = settingsOf(flags);
  let tokens: Awaited<ReturnType<typeof ssoLogin>>;
  try {
    tokens = await ssoLogin({
      issuer: settings.issuer,
      clientId: settings.clientId,
      resource: settings.resource,
      onAuthorizationUrl: (url) => {
        process.stderr.write(`secrets: to sign in, open this address in a browser (waiting up to 5 minutes):\n\n  ${url}\n\n`);
        if (flags.open) openBrowser(url);
      },
      onIgnored: (why) => process.stderr.write(`secrets: ${why}\n`),
    });
  } catch (error) {
    throw error instanceof SsoError ? new Error(`sign-in with ${settings.issuer} failed: ${error.message}`) : error;
  }
  const file = sessionPath();
  const expiresAt = new Date(tokens.expiresAt).toISOString();
  saveSession(
    {
      version: 1,
      apiUrl: apiIdentity(settings.apiUrl),
      issuer: settings.issuer,
      clientId: settings.clientId,
      subject: tokens.subject,
      accessToken: tokens.accessToken,
      expiresAt,
      ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
      ...(settings.resource ? { resource: settings.resource } : {}),
    },
    file,
  );
  process.stderr.write(
    `secrets: signed in${tokens.subject ? ` as ${tokens.subject}` : ''} until ${expiresAt}${tokens.refreshToken ? ' (renewed before then while the identity provider allows)' : ''}, for ${apiIdentity(settings.apiUrl)}; the session is kept in ${file}\n`,
  );
}

/** `secrets logout`: deletes the session of `secrets login --sso`. */
export function registerLogout(cli: Command): void {
  cli
    .command('logout')
    .description('forget the session of `secrets login --sso` (delete its file)')
    .addHelpText('after', '\nThe token itself stays valid at the identity provider until it expires.\n\nExample: secrets logout')
    .action(() => {
      const file = sessionPath();
      process.stderr.write(
        removeSession(file) ? `secrets: signed out: ${file} deleted\n` : `secrets: no session to forget (${file} does not exist)\n`,
      );
    });
}
