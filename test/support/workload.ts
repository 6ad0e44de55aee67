import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { call, newWorkspace } from './api.ts';
import { newEnvironment } from './secrets.ts';

/**
 * Helpers of the workload identity tests (decisions.md, "Workload identity: login with AWS IAM or OIDC"): a workspace
 * with secrets to load, access keys that log in, the audit entries a login leaves, forged JWTs and the CLI.
 */

/** One test's own workspace: project `payments` with environment `prod` holding `secrets`. */
export interface WorkloadPlace {
  apiKey: string;
  envId: string;
}

/** Answers the body's `data`, or throws with the API's answer when the status is not `status`. */
async function expectStatus<T = any>(status: number, answer: Promise<{ status: number; body: any }>): Promise<T> {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body?.error ?? body)}`);
  return body.data as T;
}

/** A fresh workspace (so audit counts are the test's own) with `payments/prod` holding `secrets`. */
export async function workloadPlace(secrets: Record<string, string>): Promise<WorkloadPlace> {
  const { apiKey } = await newWorkspace();
  const { environment } = await newEnvironment(apiKey, { project: 'payments', environment: 'prod' });
  for (const [key, value] of Object.entries(secrets)) {
    const put = await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: apiKey, body: { key, value } });
    if (put.status >= 300) throw new Error(`PUT ${key}: ${put.status}`);
  }
  return { apiKey, envId: environment.id };
}

/** An access key that logs in (`auth` is aws_iam or oidc); answers its record. */
export async function loginKey(apiKey: string, body: { auth: Record<string, unknown>; permissions?: unknown[]; tokenTtlSeconds?: number }) {
  return expectStatus<{ id: string; identityId: string; token: string | null; auth: Record<string, unknown> }>(
    201,
    call('POST', '/api/v1/access-keys', { token: apiKey, body: { name: 'workload', ...body } }),
  );
}

/** Revokes an access key. */
export async function revokeKey(apiKey: string, accessKeyId: string): Promise<void> {
  await expectStatus(200, call('POST', `/api/v1/access-keys/${accessKeyId}/revoke`, { token: apiKey }));
}

/** POST /api/v1/auth/login with an OIDC token. */
export function oidcLogin(accessKeyId: string, jwt: string) {
  return call('POST', '/api/v1/auth/login', { body: { accessKeyId, method: 'oidc', jwt } });
}

/** An audit entry as the API lists it. */
export interface AuditEntry {
  action: string;
  actorSub: string;
  target: string;
  metadata: Record<string, unknown>;
}

/** The workspace's audit entries of one action (newest first), for one target or actor. */
export async function auditEntries(apiKey: string, filter: { action: string; target?: string; actorSub?: string }): Promise<AuditEntry[]> {
  const query = new URLSearchParams({ ...filter, limit: '200' });
  return expectStatus<AuditEntry[]>(200, call('GET', `/api/v1/audit?${query}`, { token: apiKey }));
}

/** How many `secret.reveal` entries the key's identity has in the environment (a bulk reveal writes one per secret). */
export async function revealCount(apiKey: string, identityId: string, envId: string): Promise<number> {
  const entries = await auditEntries(apiKey, { action: 'secret.reveal', actorSub: identityId });
  return entries.filter((entry) => entry.metadata.environmentId === envId).length;
}

/**
 * A JWT with the claims and `kid` of a genuine one, signed by a fresh key that is in no issuer's JWKS (RS256), or
 * with HS256 and a secret of the attacker's: what someone who knows the issuer and its key id can make.
 */
export async function forgedJwt(genuine: string, alg: 'RS256' | 'HS256' = 'RS256'): Promise<string> {
  const { kid } = decodeProtectedHeader(genuine);
  const key =
    alg === 'RS256' ? (await generateKeyPair('RS256')).privateKey : new TextEncoder().encode('an-attacker-chosen-hmac-secret-of-32b');
  return new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg, kid: kid!, typ: 'at+jwt' }).sign(key);
}

/** A genuine JWT whose payload is replaced by its claims with `claims` on top, its header and signature kept. */
export function tamperedJwt(genuine: string, claims: Record<string, unknown>): string {
  const [header, , signature] = genuine.split('.');
  const payload = Buffer.from(JSON.stringify({ ...decodeJwt(genuine), ...claims })).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/** `now + seconds`, in the seconds of JWT time claims. */
export const epochSeconds = (seconds = 0) => Math.floor(Date.now() / 1000) + seconds;

const BIN = resolve('sdk/bin/secrets.js');

/**
 * Runs `secrets …` (sdk/bin/secrets.js, as a user runs it) in a fresh folder with exactly `env` on top of this
 * process's environment stripped of every SECRETS_ and AWS_ variable, so no credential leaks in from outside.
 */
export async function runSecrets(args: string[], env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(SECRETS|AWS)_/.test(name)));
  const folder = mkdtempSync(join(tmpdir(), 'secrets-workload-'));
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: folder,
    env: { ...base, XDG_CACHE_HOME: join(folder, 'cache'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolveRun) => child.on('close', resolveRun));
  rmSync(folder, { recursive: true, force: true });
  return { stdout, stderr, code };
}
