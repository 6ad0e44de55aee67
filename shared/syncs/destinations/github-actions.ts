import { guardedRequest } from '../../net/guarded-get.ts';
import type { GuardedGetResult, GuardedRequestOptions } from '../../net/guarded-get.ts';
import { parseAllowedCidrs } from '../../net/ssrf.ts';
import type { AllowedCidrs } from '../../net/ssrf.ts';
import type { GithubActionsDestination } from '../sync-records.ts';
import { DestinationError } from './destination.ts';
import type { DestinationContext, PushedValue, SyncDestination } from './destination.ts';

/**
 * GitHub Actions secrets (decisions.md v1.4, "Syncs") through GitHub's REST API: a repository's secrets, or a
 * repository environment's. GitHub only takes values sealed with the repository's (or environment's) public key in a
 * libsodium sealed box (`crypto_box_seal`), so each push reads that key once and seals every value with it. Every call
 * goes through the SSRF guard's pinned request (shared/net/guarded-get.ts), so `apiUrl` reaches public https hosts
 * only (or the private ranges `WEBHOOK_ALLOW_PRIVATE_CIDRS` opens, locally).
 */

/** The REST API's request: the guarded one in production; tests hand in their own. */
export type GithubTransport = (url: string, options: GuardedRequestOptions) => Promise<GuardedGetResult>;

const DEFAULT_API_URL = 'https://api.github.com';
const API_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };
const TIMEOUT_MS = 10_000;
/** GitHub's answers here are small JSON documents (a key, or an error): anything past this is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The Actions secret name of a key: `/` and `.` become `_`, and it is upper case (GitHub's names are). */
export const githubSecretName = (key: string) => key.replace(/[/.]/g, '_').toUpperCase();

/** The base64 alphabet GitHub's keys and sealed values use (libsodium's `ORIGINAL` variant). */
const BASE64_ORIGINAL = 1;

/**
 * libsodium, loaded on the first GitHub push only (its WebAssembly build is large, and no other path needs it).
 * libsodium-wrappers is GitHub's documented way to seal Actions secrets and is maintained by libsodium's author.
 */
async function sodium() {
  const { default: library } = await import('libsodium-wrappers');
  await library.ready;
  return library;
}

/** Seals a value for GitHub with the repository's public key (base64): a sealed box, base64. */
export async function sealForGithub(value: string, publicKey: string): Promise<string> {
  const library = await sodium();
  const sealed = library.crypto_box_seal(library.from_string(value), library.from_base64(publicKey, BASE64_ORIGINAL));
  return library.to_base64(sealed, BASE64_ORIGINAL);
}

/** Makes the GitHub Actions destination of a sync; `transport` is for tests. */
export function makeGithubActionsDestination(
  destination: GithubActionsDestination,
  context: DestinationContext,
  transport: GithubTransport = guardedRequest,
): SyncDestination {
  const token = context.token;
  if (token === undefined || token === '') throw new DestinationError('GitHub: the sync has no token');
  const secrets = secretsUrl(destination);
  const call = caller(token, parseAllowedCidrs(context.allowPrivateCidrs), transport);
  return {
    wholeEnvironment: false,
    async put(values) {
      if (values.length === 0) return;
      const names = namesOf(values);
      // One key read per push: every value of it is sealed with the same key.
      const key = await publicKey(await call('GET', `${secrets}/public-key`, 'public key'), token);
      for (const { key: envKey, value } of values) {
        const name = names.get(envKey)!;
        const body = { encrypted_value: await sealForGithub(value, key.key), key_id: key.key_id };
        // GitHub's guidance for writes is one at a time (its secondary rate limits punish concurrent ones).
        const answer = await call('PUT', `${secrets}/${encodeURIComponent(name)}`, `PUT secret ${name}`, body);
        if (answer.statusCode !== 201 && answer.statusCode !== 204) throw githubFailure(`PUT secret ${name}`, answer, token);
      }
    },
    async remove(keys) {
      for (const envKey of keys) {
        const name = githubSecretName(envKey);
        const answer = await call('DELETE', `${secrets}/${encodeURIComponent(name)}`, `DELETE secret ${name}`);
        // 404: already gone, which is what remove wants.
        if (answer.statusCode !== 204 && answer.statusCode !== 404) throw githubFailure(`DELETE secret ${name}`, answer, token);
      }
    },
  };
}

type Caller = (method: GuardedRequestOptions['method'], url: string, what: string, body?: unknown) => Promise<Answer>;
type Answer = { statusCode: number; body: Buffer };

/** One REST call with the token and GitHub's headers; no answer at all (refused, failed) is a DestinationError. */
function caller(token: string, allow: AllowedCidrs, transport: GithubTransport): Caller {
  return async (method, url, what, body) => {
    const json = body === undefined ? {} : { 'Content-Type': 'application/json' };
    const options = {
      method,
      headers: { ...API_HEADERS, Authorization: `Bearer ${token}`, ...json },
      allow,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
    };
    const result = await transport(url, { ...options, ...(body !== undefined && { body: JSON.stringify(body) }) });
    if (result.kind !== 'answered') throw new DestinationError(`GitHub ${what}: ${result.reason}`);
    return result;
  };
}

/** The secrets collection's URL: `…/actions/secrets` of the repository, or `…/environments/{env}/secrets`. */
function secretsUrl(destination: GithubActionsDestination): string {
  const parts = destination.repository.split('/');
  if (parts.length !== 2 || parts.some((part) => part === '')) {
    throw new DestinationError(`GitHub: repository ${destination.repository} is not owner/repo`);
  }
  const root = (destination.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const repository = `${root}/repos/${parts.map(encodeURIComponent).join('/')}`;
  const environment = destination.environment;
  return environment === undefined
    ? `${repository}/actions/secrets`
    : `${repository}/environments/${encodeURIComponent(environment)}/secrets`;
}

/** Each key's secret name; two keys of one push that would land on one name are refused (neither would win). */
function namesOf(values: readonly PushedValue[]): Map<string, string> {
  const names = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const { key } of values) {
    const name = githubSecretName(key);
    const other = owners.get(name);
    if (other !== undefined && other !== key) throw new DestinationError(`GitHub: keys ${other} and ${key} are both the secret ${name}`);
    owners.set(name, key);
    names.set(key, name);
  }
  return names;
}

/** The repository's public key from its answer, or the answer as an error. */
function publicKey(answer: Answer, token: string): { key: string; key_id: string } {
  if (answer.statusCode !== 200) throw githubFailure('public key', answer, token);
  const parsed = parseJson(answer.body) as { key?: unknown; key_id?: unknown } | undefined;
  if (typeof parsed?.key !== 'string' || typeof parsed.key_id !== 'string') {
    throw new DestinationError('GitHub public key: the answer has no key and key_id');
  }
  return { key: parsed.key, key_id: parsed.key_id };
}

/**
 * A refusal as `GitHub <what>: <status> (<GitHub's message>)`. The message is GitHub's own words; should it ever
 * quote the token, it is left out.
 */
export function githubFailure(what: string, answer: Answer, token: string): DestinationError {
  const message = (parseJson(answer.body) as { message?: unknown } | undefined)?.message;
  const text = typeof message === 'string' && !message.includes(token) ? ` (${message.slice(0, 200)})` : '';
  return new DestinationError(`GitHub ${what}: ${answer.statusCode}${text}`);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
