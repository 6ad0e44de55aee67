/**
 * What the deployment tells the console (`/console/config.json`, written by the local stack or the CDK stack; no
 * inline script, so the Content-Security-Policy stays `script-src 'self'`): where the API is, and how people sign in.
 */
export interface ConsoleConfig {
  /** The API's origin; empty when it is the console's own (the local stack). */
  apiUrl: string;
  /** The identity provider's issuer and the console's OAuth client id: "Sign in with <issuer>" when both are set. */
  issuer?: string;
  clientId?: string;
  /** The resource indicator (RFC 8707) to ask the identity provider for: the API, when the provider issues its JWT access tokens only for a named resource. */
  resource?: string;
  /**
   * The access token claim that names a person's role (decisions.md, "Roles of people"), and the role without one
   * (when the deployment names none, the console offers the weakest role's).
   */
  roleClaim: string;
  defaultRole: string;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('/console/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`the console's configuration could not be read (HTTP ${response.status})`);
  const config = (await response.json()) as Partial<ConsoleConfig>;
  return {
    apiUrl: config.apiUrl ?? '',
    roleClaim: config.roleClaim ?? 'roles',
    defaultRole: config.defaultRole ?? '',
    ...(config.issuer ? { issuer: config.issuer } : {}),
    ...(config.clientId ? { clientId: config.clientId } : {}),
    ...(config.resource ? { resource: config.resource } : {}),
  };
}
