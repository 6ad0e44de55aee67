import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { JWK } from 'jose';
import type { StackInfo } from '../../bin/local/stack.ts';
import { RECEIVER_NAMES, trustedCertificate } from '../support/https-receiver.ts';
import { startTestIdp } from '../support/jwks.ts';
import { startMoto } from '../support/moto.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
    localDir: string;
    idp: { issuer: string; audience: string; signingKeys: { rs256: JWK; es256: JWK } };
    /** The certificate the local stack trusts (NODE_EXTRA_CA_CERTS): webhook receivers in tests serve with it. */
    tls: { cert: string; key: string };
    /** moto's server, the stack's SYNC_AWS_ENDPOINT: syncs' Parameter Store, Secrets Manager and STS (issue 50). */
    syncAws: string;
    /** The Chromium the browser tests launch (test/support/browser.ts), unpacked once here. */
    chromiumPath: string;
  }
}

/** The local stack's settings for tests: loopback receivers allowed, retry delays and the 24 h window shrunk 10,000×. */
export const TEST_TIME_SCALE = 0.0001;

/**
 * Starts the real local stack once for all integration tests, as `npm start` does, in its own process: DynamoDB
 * Local, the local API Gateway, the SQS emulator, the local scheduler and the stream and queue pollers. A test
 * identity provider serves its JWKS over TLS, and the stack trusts the test certificate through Node's standard
 * NODE_EXTRA_CA_CERTS, as a deployment trusts a private CA.
 */
export default async function setup(project: TestProject) {
  const localDir = mkdtempSync(join(tmpdir(), 'secrets-it-'));
  const certificate = trustedCertificate(RECEIVER_NAMES);
  const caFile = join(localDir, 'test-ca.pem');
  writeFileSync(caFile, certificate.cert);
  const idp = await startTestIdp(certificate);
  // Syncs to Parameter Store and Secrets Manager push to moto's server (a test that cannot start it fails, never skips).
  const moto = await startMoto();
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      LOCAL_DIR: localDir,
      NODE_EXTRA_CA_CERTS: caFile,
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: idp.audience,
      JWT_JWKS_URI: idp.jwksUri,
      JWT_REQUIRED_TYPE: 'at+jwt',
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
      // The test OIDC issuer listens on loopback (test/support/oidc-issuer.ts).
      OIDC_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
      WEBHOOK_TIME_SCALE: String(TEST_TIME_SCALE),
      // A rotation step that never finishes fails after 10 s here (AWS: 5 minutes); a step of the stand-ins takes 1-3 s.
      ROTATION_STEP_TIMEOUT_SECONDS: '10',
      SYNC_AWS_ENDPOINT: moto.url,
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
    },
    stdio: ['ignore', openSync(join(localDir, 'stack.log'), 'a'), openSync(join(localDir, 'stack.log'), 'a')],
  });
  const stack = await waitForStack(child, localDir).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await idp.close();
    await moto.stop();
    throw error;
  });
  project.provide('stack', stack);
  project.provide('localDir', localDir);
  project.provide('idp', { issuer: idp.issuer, audience: idp.audience, signingKeys: idp.signingKeys });
  project.provide('tls', certificate);
  project.provide('syncAws', moto.url);
  // @sparticuz/chromium unpacks its browser into /tmp on the first call: two browser files asking at once in their
  // workers raced (one spawned the binary while the other was still writing it: spawn ETXTBSY), so it is asked once.
  project.provide('chromiumPath', process.env.CHROMIUM_PATH || (await (await import('@sparticuz/chromium')).default.executablePath()));
  return async () => {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await idp.close();
    await moto.stop();
    // The stack's own log outlives the run, for reading after a failure.
    copyFileSync(join(localDir, 'stack.log'), join(tmpdir(), 'secrets-it-stack.log'));
    rmSync(localDir, { recursive: true, force: true });
  };
}

/** Waits for the stack to write stack.json (it does so once everything runs); a stack that exits shows its log. */
export async function waitForStack(child: ChildProcess, localDir: string): Promise<StackInfo> {
  const file = join(localDir, 'stack.json');
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as StackInfo;
      } catch {
        // Caught while being written: read it again.
      }
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`The local stack did not start:\n${readFileSync(join(localDir, 'stack.log'), 'utf8').slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
