import type { ConsoleConfig } from './config.ts';

/**
 * Sign-in with the identity provider (OpenID Connect authorization code + PKCE), when the stack sets
 * `consoleClientId`: to be built (issue 28). Until then the console offers the pasted token only.
 */
export function idpSignInAvailable(config: ConsoleConfig): boolean {
  return Boolean(config.issuer && config.clientId);
}

export async function startIdpSignIn(_config: ConsoleConfig): Promise<void> {
  throw new Error('sign-in with the identity provider is not available yet');
}

/** On return from the identity provider: the token for the code in the address, or null when there is none. */
export async function completeIdpSignIn(_config: ConsoleConfig): Promise<string | null> {
  return null;
}
