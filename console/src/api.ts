import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, createClient, unwrap, type SecretsClient } from '@secrets-service/sdk/client';
import type { ConsoleConfig } from './config.ts';
import type { Credential } from './session.ts';

export { unwrap };

/** What every view needs: the API through the SDK's typed client, the deployment's settings and who signed in. */
export interface Session {
  client: SecretsClient;
  config: ConsoleConfig;
  credential: Credential;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session;
}

/**
 * A client for `token`: the API at the configured origin, or the console's own. `token` may be a function: each
 * request then carries the token it answers when the request leaves (a session renewed meanwhile sends its new one).
 * Every answer 401 (the token is not, or no longer, one the API takes) also goes to `onRefused` as the API's error,
 * whichever view asked.
 */
export function clientFor(config: ConsoleConfig, token: string | (() => string), onRefused?: (refusal: unknown) => void): SecretsClient {
  const current = typeof token === 'string' ? () => token : token;
  const refusing: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${current()}`);
    const response = await fetch(request);
    if (response.status === 401 && onRefused) onRefused(await refusalOf(response.clone()));
    return response;
  };
  return createClient({ baseUrl: config.apiUrl || location.origin, token: current(), maxRetries: 1, fetch: refusing });
}

/** A 401 as the SDK reads every error answer: an ApiError with the API's code, message and request id. */
async function refusalOf(response: Response): Promise<unknown> {
  const error: unknown = await response.json().catch(() => undefined);
  try {
    return unwrap({ error, response });
  } catch (refusal) {
    return refusal;
  }
}

/**
 * Tries a token before the console keeps it, on the first project (every credential the API takes may list them):
 * the API's refusal (its 401), or null. Any other failure is the views' to show once signed in.
 */
export async function refusalOfToken(config: ConsoleConfig, token: string): Promise<unknown> {
  let refusal: unknown = null;
  const client = clientFor(config, token, (refused) => (refusal = refused));
  await client.api.GET('/api/v1/projects', { params: { query: { limit: '1' } } }).catch(() => undefined);
  return refusal;
}

/** An error as the console shows it: the API's code and message, and the lines its `details` give (describeError). */
export interface DescribedError {
  code: string;
  message: string;
  status?: number;
  /** A reveal's references that could not be resolved, one line each as written in the value (`${DB_HOST}: unresolvable`). */
  references?: string[];
  /** A merge's stale keys: each changed since the request was opened (`API_URL: proposed on version 1, now 2`). */
  stale?: string[];
}

/**
 * An error as the console shows it: the API's code and message, or what went wrong on the way; for a reveal whose
 * references could not be resolved, one line each as written in the value; for a merge refused because keys changed
 * since the request was opened, one line each stale key with both versions (decisions.md, "Change requests").
 */
export function describeError(error: unknown): DescribedError {
  if (!(error instanceof ApiError)) return { code: 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) };
  const details = error.details ?? [];
  const references = details.flatMap((detail) =>
    typeof detail.reference === 'string' && typeof detail.reason === 'string' ? [`\${${detail.reference}}: ${detail.reason}`] : [],
  );
  const stale = details.flatMap((detail) =>
    typeof detail.key === 'string' && typeof detail.baseVersion === 'number' && typeof detail.currentVersion === 'number'
      ? [`${detail.key}: proposed on version ${detail.baseVersion}, now ${detail.currentVersion}`]
      : [],
  );
  const described: DescribedError = { code: error.code, message: error.message.replace(`${error.code}: `, ''), status: error.status };
  if (references.length > 0) described.references = references;
  if (stale.length > 0) described.stale = stale;
  return described;
}
