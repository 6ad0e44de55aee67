import { mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { CredentialError } from './cli-auth.js';
import { readPrivateFile, replaceFile } from './private-file.js';
import { refreshSsoTokens, SsoError, type SsoRefreshOptions, type SsoTokens } from './sso.js';

/**
 * The session `secrets login --sso` keeps: the person's access token, in the user's config folder
 * (`$XDG_CONFIG_HOME/secrets/session.json`, default `~/.config/secrets/session.json`), created with mode 600 and
 * read only while it is the user's own file closed to everyone else. Every command uses it when it is given no
 * other credential, for the API it was made for alone, until it expires; `secrets logout` deletes it. When the
 * identity provider gave a refresh token, it is kept in the same file, and the access token is renewed with it before
 * a command sends one that is about to expire (sessionFetch), the session file rewritten with the new tokens.
 */
export interface SsoSession {
  version: 1;
  /** The API the token is for: it is never sent to another. */
  apiUrl: string;
  issuer: string;
  clientId: string;
  /** The person, as the identity provider names them (`sub`), for messages. */
  subject?: string | undefined;
  accessToken: string;
  /** ISO 8601. */
  expiresAt: string;
  /** What renews the access token (the provider's refresh token), when it gave one. */
  refreshToken?: string | undefined;
  /** The resource indicator the tokens are asked for, again at every renewal. */
  resource?: string | undefined;
}

/** What to do about a session file that must not be used. */
const REMEDY = 'run `secrets logout`, then `secrets login --sso` again';
/** A token this close to its end is not sent: it would expire on the way. */
const EXPIRY_MARGIN_MS = 30_000;
/** A token this close to its end is renewed first, when the session can renew it. */
const RENEWAL_MARGIN_MS = 60_000;

/** Where the session lives: XDG_CONFIG_HOME when it is an absolute path (as the XDG spec asks), else ~/.config. */
export function sessionPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.XDG_CONFIG_HOME;
  const base = configured && isAbsolute(configured) ? configured : join(homedir(), '.config');
  return join(base, 'secrets', 'session.json');
}

/** The API's address as sessions compare it: origin and path, without a trailing slash or anything else. */
export function apiIdentity(apiUrl: string): string {
  const url = new URL(apiUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Writes the session (a fresh mode-600 file renamed over the old one); the folder is made 700 when it is new. */
export function saveSession(session: SsoSession, file: string = sessionPath()): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  replaceFile(file, `${JSON.stringify(session, null, 2)}\n`);
}

/** Deletes the session; answers whether there was one. */
export function removeSession(file: string = sessionPath()): boolean {
  try {
    rmSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function parse(body: string): SsoSession | undefined {
  try {
    const session = JSON.parse(body) as Partial<SsoSession>;
    const valid =
      session.version === 1 &&
      typeof session.accessToken === 'string' &&
      typeof session.apiUrl === 'string' &&
      !Number.isNaN(Date.parse(session.expiresAt ?? '')) &&
      (session.refreshToken === undefined || typeof session.refreshToken === 'string');
    return valid ? (session as SsoSession) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The session for the API at `apiUrl`: undefined when there is none; CredentialError (a usage error, naming the file
 * and what to do, never the token) when the file may not be used or is for another API.
 */
function sessionFor(apiUrl: string, file: string): SsoSession | undefined {
  const read = readPrivateFile(file, REMEDY);
  if (!read) return undefined;
  if ('refusal' in read) throw new CredentialError(`the SSO session at ${file} is not used: ${read.refusal}`);
  const session = parse(read.body);
  if (!session) throw new CredentialError(`the SSO session at ${file} cannot be read: ${REMEDY}`);
  if (apiIdentity(session.apiUrl) !== apiIdentity(apiUrl)) {
    throw new CredentialError(
      `the SSO session at ${file} is for the API at ${apiIdentity(session.apiUrl)}, not ${apiIdentity(apiUrl)}: give --token, or run \`secrets login --sso\` for this API`,
    );
  }
  return session;
}

const expired = (session: SsoSession, reason = '') =>
  new CredentialError(
    `the SSO session${session.subject ? ` of ${session.subject}` : ''} expired at ${session.expiresAt}${reason}: run \`secrets login --sso\` again`,
  );

/**
 * The session's token for the API at `apiUrl`, the last source of a command's credential: undefined when there is
 * no session; CredentialError when the file may not be used, is for another API, or has expired and cannot be
 * renewed (a session with a refresh token is renewed before its token is sent: sessionFetch).
 */
export function sessionToken(apiUrl: string, file: string = sessionPath(), now: number = Date.now()): string | undefined {
  const session = sessionFor(apiUrl, file);
  if (!session) return undefined;
  if (Date.parse(session.expiresAt) - EXPIRY_MARGIN_MS <= now && !session.refreshToken) throw expired(session);
  return session.accessToken;
}

/** How a session is renewed: the provider's refresh_token grant (sso.ts); tests give their own. */
export type Renew = (options: SsoRefreshOptions) => Promise<SsoTokens>;

/**
 * The session's token, renewed first when it expires within a minute and the session has a refresh token; the
 * renewed tokens are saved (a provider that rotates refresh tokens makes the old one useless). A renewal the provider
 * refuses (`invalid_grant`) is a CredentialError saying to sign in again; one that fails otherwise (the provider
 * unreachable) leaves the token as it is while it is still good.
 */
export async function freshSessionToken(
  apiUrl: string,
  file: string = sessionPath(),
  now: () => number = Date.now,
  renew: Renew = refreshSsoTokens,
): Promise<string> {
  const session = sessionFor(apiUrl, file);
  if (!session) throw new CredentialError(`the SSO session at ${file} is gone: run \`secrets login --sso\` again`);
  const ends = Date.parse(session.expiresAt);
  if (ends - RENEWAL_MARGIN_MS > now() || !session.refreshToken) {
    if (ends - EXPIRY_MARGIN_MS <= now()) throw expired(session);
    return session.accessToken;
  }
  let tokens: SsoTokens;
  try {
    tokens = await renew({
      issuer: session.issuer,
      clientId: session.clientId,
      resource: session.resource,
      refreshToken: session.refreshToken,
    });
  } catch (error) {
    if (!(error instanceof SsoError)) throw error;
    if (!error.final && ends - EXPIRY_MARGIN_MS > now()) return session.accessToken;
    throw expired(session, ` and could not be renewed (${error.message})`);
  }
  saveSession(
    {
      ...session,
      accessToken: tokens.accessToken,
      expiresAt: new Date(tokens.expiresAt).toISOString(),
      refreshToken: tokens.refreshToken ?? session.refreshToken,
    },
    file,
  );
  return tokens.accessToken;
}

/**
 * The fetch of a client whose credential is the session: every request carries the session's token as
 * freshSessionToken answers it (renewed at most once per run of the command, whoever asks first).
 */
export function sessionFetch(apiUrl: string, options: { file?: string; renew?: Renew; fetch?: typeof fetch } = {}): typeof fetch {
  let token: Promise<string> | undefined;
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    token ??= freshSessionToken(apiUrl, options.file, Date.now, options.renew);
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${await token}`);
    return send(request);
  };
}
