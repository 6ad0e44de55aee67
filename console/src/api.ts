import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, createClient, unwrap, type SecretsClient } from '@secrets-service/sdk/client';
import type { ConsoleConfig } from './config.ts';
import type { Role } from './session.ts';

export { unwrap };

/** What every view needs: the API through the SDK's typed client, the deployment's settings and the person's role. */
export interface Session {
  client: SecretsClient;
  config: ConsoleConfig;
  role: Role;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session;
}

/** A client for `token`: the API at the configured origin, or the console's own. */
export function clientFor(config: ConsoleConfig, token: string): SecretsClient {
  return createClient({ baseUrl: config.apiUrl || location.origin, token, maxRetries: 1 });
}

/** An error as the console shows it: the API's code and message, or what went wrong on the way. */
export function describeError(error: unknown): { code: string; message: string; status?: number } {
  if (error instanceof ApiError) return { code: error.code, message: error.message.replace(`${error.code}: `, ''), status: error.status };
  return { code: 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/** True for an answer that means the token is no good any more: the person signs in again. */
export function isSignedOut(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}
