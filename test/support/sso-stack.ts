import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { StackInfo } from '../../bin/local/stack.ts';
import { waitForStack } from '../integration/global-setup.ts';
import { startLoginProvider, type LoginProvider } from './oidc-login.ts';

/**
 * A second local stack whose people sign in with a real OpenID provider (oidc-provider, test/support/oidc-login.ts):
 * the shared stack of the integration tests trusts a JWKS stand-in, and the JWT settings are read once per process,
 * so this one runs as its own process, as global-setup.ts runs the first, with the provider as JWT_ISSUER, the
 * console's client id (CONSOLE_CLIENT_ID) and the resource indicator its tokens are for (CONSOLE_RESOURCE).
 */
export interface SsoStack {
  stack: StackInfo;
  provider: LoginProvider;
  /** The API's audience, and the resource indicator its tokens are asked for. */
  resource: string;
  consoleClientId: string;
  cliClientId: string;
  /** The file of the CA the stack trusts: a CLI run in a test needs it too (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  close(): Promise<void>;
}

const RESOURCE = 'https://api.secrets.test/';
const CONSOLE_CLIENT = 'secrets-console';
const CLI_CLIENT = 'secrets-cli';

/**
 * Starts the provider, then the stack trusting it; registers the console and CLI clients; stops both on close. The
 * console's client is given refresh tokens; `accessTokenTtlSeconds` shortens the access tokens' life (default 600 s).
 */
export async function startSsoStack(options: { accessTokenTtlSeconds?: number } = {}): Promise<SsoStack> {
  const provider = await startLoginProvider(inject('tls'), { resource: RESOURCE, ...options });
  const localDir = mkdtempSync(join(tmpdir(), 'secrets-sso-'));
  const caFile = join(inject('localDir'), 'test-ca.pem');
  const log = openSync(join(localDir, 'stack.log'), 'a');
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      LOCAL_DIR: localDir,
      NODE_EXTRA_CA_CERTS: caFile,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: RESOURCE,
      JWT_JWKS_URI: provider.jwksUri,
      JWT_REQUIRED_TYPE: 'at+jwt',
      CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      CONSOLE_RESOURCE: RESOURCE,
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', log, log],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await provider.close();
    rmSync(localDir, { recursive: true, force: true });
  };
  let stack: StackInfo;
  try {
    stack = await waitForStack(child, localDir);
  } catch (error) {
    await stop();
    throw error;
  }
  provider.registerClient({ clientId: CONSOLE_CLIENT, redirectUris: [`${stack.baseUrl}/console/`], refreshTokens: true });
  provider.registerClient({ clientId: CLI_CLIENT, redirectUris: ['http://127.0.0.1/callback'], native: true });
  return { stack, provider, resource: RESOURCE, consoleClientId: CONSOLE_CLIENT, cliClientId: CLI_CLIENT, caFile, close: stop };
}

/** A call to the SSO stack's API with `token`: its status and body. */
export async function ssoCall(
  stack: StackInfo,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}
