import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import sodium from 'libsodium-wrappers';
import { trustedCertificate } from './https-receiver.ts';

/**
 * A stand-in for GitHub's Actions secrets API (repository and repository-environment secrets), over HTTPS on
 * 127.0.0.1 with a certificate this process trusts. It hands out the public key of a key pair it made and OPENS every
 * sealed value with the private key (`crypto_box_seal_open`), so a value sealed wrongly is refused (422) as GitHub
 * would, and what the tests read back is what was sealed.
 *
 *   const github = await startGithubStandIn({ token: 'ghp_test' });
 *   // apiUrl: github.apiUrl
 *   expect(github.secret('acme/web', 'DB_URL')).toBe('postgres://…');
 *   github.failNext(401, 3);   // a revoked token for the next 3 requests
 *   await github.close();
 */

/** One request as the stand-in saw it (headers kept apart: the token is in them). */
export interface GithubRequest {
  method: string;
  path: string;
  status: number;
}

export interface GithubStandIn {
  /** `https://127.0.0.1:<port>`: a destination's `apiUrl`. */
  apiUrl: string;
  /** The key id handed out with the public key. */
  keyId: string;
  requests: GithubRequest[];
  /** The opened value of a secret, or undefined; `environment` for an environment's secrets. */
  secret: (repository: string, name: string, environment?: string) => string | undefined;
  /** The secret names of a repository (or of one of its environments), sorted. */
  names: (repository: string, environment?: string) => string[];
  /** Answers the next `count` requests (every one, without `count`) with this status and GitHub's message. */
  failNext: (status: number, count?: number) => void;
  close: () => Promise<void>;
}

const MESSAGES: Record<number, string> = {
  401: 'Bad credentials',
  403: 'Resource not accessible',
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
const SECRETS = /^\/repos\/([^/]+)\/([^/]+)\/(?:actions|environments\/([^/]+))\/secrets\/([^/]+)$/;

/** What the stand-in holds: its key pair, the opened secrets (by `repo|env|name`) and the failures it was told to answer. */
interface StandInState {
  token: string;
  pair: { publicKey: Uint8Array; privateKey: Uint8Array };
  keyId: string;
  stored: Map<string, string>;
  failure: { status: number; left: number } | undefined;
}

const where = (repository: string, environment: string | undefined) => `${repository}|${environment ?? ''}|`;

/** Starts the stand-in; only `Bearer <token>` is accepted. `certificate`: one another process trusts. */
export async function startGithubStandIn(options: { token: string; certificate?: { cert: string; key: string } }): Promise<GithubStandIn> {
  await sodium.ready;
  const state: StandInState = {
    token: options.token,
    pair: sodium.crypto_box_keypair(),
    keyId: `${Date.now()}`,
    stored: new Map(),
    failure: undefined,
  };
  const requests: GithubRequest[] = [];
  const server = createServer(options.certificate ?? trustedCertificate(['localhost']), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const [status, answer] = handle(state, req, Buffer.concat(chunks).toString('utf8'));
      requests.push({ method: req.method ?? '', path: req.url ?? '', status });
      reply(res, status, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const namesOf = (prefix: string) => [...state.stored.keys()].filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
  return {
    apiUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyId: state.keyId,
    requests,
    secret: (repository, name, environment) => state.stored.get(`${where(repository, environment)}${name}`),
    names: (repository, environment) => namesOf(where(repository, environment)).sort(),
    failNext: (status, count = Number.POSITIVE_INFINITY) => {
      state.failure = { status, left: count };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request's answer: a told failure, then GitHub's checks (token, API version), then the endpoint. */
function handle(state: StandInState, req: IncomingMessage, body: string): [number, unknown?] {
  const failure = state.failure;
  if (failure !== undefined && failure.left-- > 0) return [failure.status, { message: MESSAGES[failure.status] ?? 'Error' }];
  if (req.headers.authorization !== `Bearer ${state.token}`) return [401, { message: 'Bad credentials' }];
  if (req.headers['x-github-api-version'] !== '2022-11-28' || req.headers.accept !== 'application/vnd.github+json') {
    return [400, { message: 'Missing API version or media type' }];
  }
  const match = SECRETS.exec(req.url ?? '');
  if (match === null) return [404, { message: 'Not Found' }];
  const [, owner, repo, environment, name] = match.map((part) => (part === undefined ? part : decodeURIComponent(part)));
  const id = `${where(`${owner}/${repo}`, environment)}${name}`;
  if (name === 'public-key') {
    return req.method === 'GET'
      ? [200, { key_id: state.keyId, key: sodium.to_base64(state.pair.publicKey, 1) }]
      : [404, { message: 'Not Found' }];
  }
  if (req.method === 'DELETE') return state.stored.delete(id) ? [204] : [404, { message: 'Not Found' }];
  if (req.method !== 'PUT') return [404, { message: 'Not Found' }];
  return putSecret(state, id, body);
}

/** A PUT: the key id must be the current one, and the sealed box must open with the private key (else 422). */
function putSecret(state: StandInState, id: string, body: string): [number, unknown?] {
  const input = JSON.parse(body) as { encrypted_value?: string; key_id?: string };
  if (input.key_id !== state.keyId) return [422, { message: 'Bad key_id' }];
  let opened: string;
  try {
    const sealed = sodium.from_base64(input.encrypted_value ?? '', 1);
    opened = sodium.to_string(sodium.crypto_box_seal_open(sealed, state.pair.publicKey, state.pair.privateKey));
  } catch {
    return [422, { message: 'Bad encrypted_value' }];
  }
  const existed = state.stored.has(id);
  state.stored.set(id, opened);
  return [existed ? 204 : 201];
}

function reply(res: ServerResponse, status: number, answer: unknown): void {
  if (answer === undefined) return void res.writeHead(status).end();
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
}
