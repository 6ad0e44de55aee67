import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { JWK } from 'jose';
import { startLocalStack, type StackInfo } from '../../bin/local/stack.ts';
import { startTestIdp } from '../support/jwks.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
    localDir: string;
    idp: { issuer: string; audience: string; signingKeys: { rs256: JWK; es256: JWK } };
  }
}

/**
 * Starts the real local stack once for all integration tests: DynamoDB Local (in memory) over HTTP, the route-group
 * handlers behind the local API Gateway, and a test identity provider whose JWKS the JWT verifier fetches over TLS.
 */
export default async function setup(project: TestProject) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const idp = await startTestIdp();
  Object.assign(process.env, { JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience, JWT_JWKS_URI: idp.jwksUri });
  const localDir = mkdtempSync(join(tmpdir(), 'secrets-it-'));
  const stack = await startLocalStack({ localDir, port: 0, persist: false });
  const { stop, ...info } = stack;
  project.provide('stack', info);
  project.provide('localDir', localDir);
  project.provide('idp', { issuer: idp.issuer, audience: idp.audience, signingKeys: idp.signingKeys });
  return async () => {
    await stop();
    await idp.close();
    rmSync(localDir, { recursive: true, force: true });
  };
}
