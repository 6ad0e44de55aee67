import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { importJWK, SignJWT } from 'jose';
import { makeDocumentClient } from '../../shared/platform/clients/dynamodb.ts';
import { checkAnswer } from './contract.ts';
import { systemClock } from '../../shared/platform/clock.ts';
import { makeWorkspaceAdminService } from '../../shared/workspaces/workspace-wiring.ts';
import { tableStores } from './table-stores.ts';
import { join } from 'node:path';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../../shared/platform/crypto/local-keyring.ts';
import { ensureOperatorMacs, type ServiceMacs } from '../../shared/platform/crypto/mac-key.ts';
import { makeMacKeyStore } from '../../shared/platform/store/mac-key-store.ts';
import { loadOnce } from '../../shared/platform/on-first-use.ts';

export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body. */
  body: T;
}

/** Calls the local stack over HTTP as a client would. */
export async function call<T = any>(
  method: string,
  path: string,
  options: { token?: string | undefined; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const { baseUrl } = inject('stack');
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  checkAnswer(method, path, response.status, parsed);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Runs `npm run admin -- …`'s script, as an operator would, against the test's local stack; answers its JSON. */
export async function admin(...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/admin.ts', ...args, '--local-dir', inject('localDir')]);
  return JSON.parse(stdout);
}

/** The data layer of the running local stack (every feature's stores), for set-up and for reading raw items. */
export function localStore() {
  const { dynamodbEndpoint, tableName } = inject('stack');
  const doc = makeDocumentClient({ endpoint: dynamodbEndpoint });
  return { doc, tableName, store: tableStores(doc, tableName) };
}

/** The running local stack's service MACs (its sealed key, unsealed with its keyring), to issue tokens it accepts. */
export const stackMacs: () => Promise<ServiceMacs> = loadOnce(async () => {
  const { doc, tableName } = localStore();
  return ensureOperatorMacs(
    makeMacKeyStore({ doc, tableName }),
    makeLocalKeyring({ keyFile: join(inject('localDir'), LOCAL_MASTER_KEY_FILE) }),
  );
});

/** A fresh workspace (allowlisted unless told otherwise) with its API key, so test files never share data. */
export async function newWorkspace(options: { allowlisted?: boolean } = {}) {
  const { store } = localStore();
  const admin = makeWorkspaceAdminService({ store, clock: systemClock, operator: 'os-user:test', macs: stackMacs });
  const created = await admin.createWorkspace({ name: 'Test workspace', allowlisted: options.allowlisted ?? true });
  return { ...created, admin };
}

/** A user access token from the test identity provider. */
export async function userToken(
  claims: Record<string, unknown>,
  options: { alg?: 'RS256' | 'ES256'; expiresIn?: string | number; issuer?: string; audience?: string; typ?: string | null } = {},
): Promise<string> {
  const idp = inject('idp');
  const alg = options.alg ?? 'RS256';
  const jwk = alg === 'RS256' ? idp.signingKeys.rs256 : idp.signingKeys.es256;
  const key = await importJWK(jwk, alg);
  const jwt = new SignJWT(claims)
    // The test stack requires RFC 9068's access-token type (JWT_REQUIRED_TYPE), as a deployment should; null omits it.
    .setProtectedHeader({ alg, kid: jwk.kid!, ...(options.typ !== null && { typ: options.typ ?? 'at+jwt' }) })
    .setIssuer(options.issuer ?? idp.issuer)
    .setAudience(options.audience ?? idp.audience)
    .setIssuedAt();
  if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn);
  else jwt.setExpirationTime('10m');
  return jwt.sign(key);
}
