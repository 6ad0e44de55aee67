import { mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { CredentialError } from './cli-auth.js';
import { readPrivateFile, replaceFile } from './private-file.js';

/**
 * The session `secrets login --sso` keeps: the person's access token, in the user's config folder
 * (`$XDG_CONFIG_HOME/secrets/session.json`, default `~/.config/secrets/session.json`), created with mode 600 and
 * read only while it is the user's own file closed to everyone else. Every command uses it when it is given no
 * other credential, for the API it was made for alone, until it expires; `secrets logout` deletes it.
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
}

/** What to do about a session file that must not be used. */
const REMEDY = 'run `secrets logout`, then `secrets login --sso` again';
/** A token this close to its end is not sent: it would expire on the way. */
const EXPIRY_MARGIN_MS = 30_000;

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
      !Number.isNaN(Date.parse(session.expiresAt ?? ''));
    return valid ? (session as SsoSession) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The session's token for the API at `apiUrl`, the last source of a command's credential: undefined when there is
 * no session; CredentialError (a usage error, naming the file and what to do, never the token) when the file may
 * not be used, is for another API, or has expired.
 */
export function sessionToken(apiUrl: string, file: string = sessionPath(), now: number = Date.now()): string | undefined {
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
  if (Date.parse(session.expiresAt) - EXPIRY_MARGIN_MS <= now) {
    throw new CredentialError(
      `the SSO session${session.subject ? ` of ${session.subject}` : ''} expired at ${session.expiresAt}: run \`secrets login --sso\` again`,
    );
  }
  return session.accessToken;
}
