import { generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeOidcLogin, MAX_JWT_BYTES, type OidcKeyAuth, type OidcVerdict } from '../../../shared/access/oidc-login.ts';
import { guardedGet } from '../../../shared/net/guarded-get.ts';
import { parseAllowedCidrs, type LookupAll } from '../../../shared/net/ssrf.ts';
import { trustedCertificate } from '../../support/https-receiver.ts';
import { startOidcIssuer } from '../../support/oidc-issuer.ts';
import { selfSignedCertificate, trustCertificate } from '../../support/tls.ts';

// A local issuer over HTTPS (a certificate for 127.0.0.1 and issuer.test that this process trusts): issuer "a" and
// issuer "b" by path, each with its discovery document and JWKS. "b" holds another key under "a"'s kid.
const NOW = Date.now();
const NOW_S = Math.floor(NOW / 1000);
const LOOPBACK = parseAllowedCidrs('127.0.0.0/8');
type Handler = (request: IncomingMessage, response: ServerResponse) => void;
type Pair = { privateKey: KeyObject; publicKey: KeyObject };

const rsa = (): Pair => generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = (): Pair => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keys = { a: { rsa: rsa(), ec: ec(), rsaBare: rsa(), ecBare: ec() }, b: { rsa: rsa() } };
const jwk = (pair: Pair, kid: string, alg?: string) => ({
  ...pair.publicKey.export({ format: 'jwk' }),
  kid,
  use: 'sig',
  ...(alg && { alg }),
});
const JWKS: Record<string, object> = {
  a: {
    keys: [
      jwk(keys.a.rsa, 'rsa-1', 'RS256'),
      jwk(keys.a.ec, 'ec-1', 'ES256'),
      jwk(keys.a.rsaBare, 'rsa-bare'),
      jwk(keys.a.ecBare, 'ec-bare'),
    ],
  },
  b: { keys: [jwk(keys.b.rsa, 'rsa-1', 'RS256')] },
};

let server: Server;
let origin: string;
let ISSUER: string;
const hits = new Map<string, number>();
const seen: { host?: string; servername?: string }[] = [];
let overrides = new Map<string, Handler>();

const json = (response: ServerResponse, body: unknown): void =>
  void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

function route(request: IncomingMessage, response: ServerResponse): void {
  const path = request.url ?? '';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  seen.push({ host: request.headers.host, servername: (request.socket as TLSSocket).servername || undefined });
  (overrides.get(path) ?? answer)(request, response);
}

/** The documents of issuers "a" and "b", named by the Host the request came with. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  const [, name, rest] = /^\/(\w+)(\/.*)$/.exec(request.url ?? '') ?? [];
  if (name === undefined || !(name in JWKS)) return void response.writeHead(404).end();
  if (rest === '/.well-known/openid-configuration')
    return json(response, { issuer: `https://${request.headers.host}/${name}`, jwks_uri: `https://${request.headers.host}/${name}/jwks` });
  if (rest === '/jwks') return json(response, JWKS[name]);
  response.writeHead(404).end();
}

beforeAll(async () => {
  server = createServer(trustedCertificate(['localhost', 'issuer.test']), route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ISSUER = `${origin}/a`;
});
afterEach(() => {
  hits.clear();
  seen.length = 0;
  overrides = new Map();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const auth = (change: Partial<OidcKeyAuth> = {}): OidcKeyAuth => ({
  type: 'oidc',
  issuer: ISSUER,
  audience: 'secrets-api',
  subject: 'repo:acme/app:ref:refs/heads/*',
  ...change,
});
const claims = (change: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: 'secrets-api',
  sub: 'repo:acme/app:ref:refs/heads/main',
  iat: NOW_S,
  exp: NOW_S + 300,
  ...change,
});
const login = (options: { allow?: ReturnType<typeof parseAllowedCidrs>; lookup?: LookupAll } = {}) =>
  makeOidcLogin({ allowPrivateCidrs: options.allow ?? LOOPBACK, now: () => NOW, ...(options.lookup && { lookup: options.lookup }) });
const discoveries = (name = 'a') => hits.get(`/${name}/.well-known/openid-configuration`) ?? 0;
const fetches = () => [...hits.values()].reduce((sum, count) => sum + count, 0);

/** A token signed with jose; the header is `{alg, kid}` unless given. */
async function token(
  payload: Record<string, unknown> = claims(),
  options: { key?: KeyObject | Uint8Array; alg?: string; kid?: string; header?: Record<string, unknown> } = {},
): Promise<string> {
  const { key = keys.a.rsa.privateKey, alg = 'RS256', kid = 'rsa-1' } = options;
  return new SignJWT(payload).setProtectedHeader({ alg, kid, ...options.header }).sign(key);
}

/** A token put together by hand, for what jose will not sign: `alg: none`, an alg that does not fit its key. */
function handmade(header: Record<string, unknown>, payload: Record<string, unknown>, signWith?: (input: Buffer) => Buffer): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${signWith ? signWith(Buffer.from(input)).toString('base64url') : ''}`;
}

/** The verdict must be this refusal, and its message must quote no part of the token, nor its subject. */
function expectRefused(verdict: OidcVerdict, jwt: string, reason: string, message?: RegExp): void {
  expect(verdict).toEqual({ ok: false, reason, message: message ? expect.stringMatching(message) : expect.any(String) });
  const { message: text } = verdict as { message: string };
  for (const part of jwt.split('.').filter((piece) => piece.length > 8)) expect(text).not.toContain(part);
  const subject = subjectOf(jwt);
  if (subject !== undefined) expect(text).not.toContain(subject);
}

function subjectOf(jwt: string): string | undefined {
  try {
    const { sub } = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** A token of exactly `bytes` bytes (a padding claim, and a header parameter for the lengths base64url skips). */
async function tokenOfSize(bytes: number): Promise<string> {
  const base = (await token(claims({ pad: '' }), { header: { h: '' } })).length;
  const estimate = Math.floor(((bytes - base) * 3) / 4);
  for (let header = 0; header < 3; header++) {
    for (let pad = estimate - 6; pad <= estimate + 2; pad++) {
      const jwt = await token(claims({ pad: 'x'.repeat(Math.max(pad, 0)) }), { header: { h: 'y'.repeat(header) } });
      if (jwt.length === bytes) return jwt;
    }
  }
  throw new Error(`no token of ${bytes} bytes`);
}

describe('OIDC login: a good token', () => {
  it('is accepted signed RS256 or ES256, answering its subject and the issuer', async () => {
    // Prepare
    const check = login();
    // Act
    const rs256 = await check(auth(), await token());
    const es256 = await check(auth(), await token(claims(), { key: keys.a.ec.privateKey, alg: 'ES256', kid: 'ec-1' }));
    // Assess
    expect(rs256).toEqual({ ok: true, subject: 'repo:acme/app:ref:refs/heads/main', issuer: ISSUER });
    expect(es256).toEqual({ ok: true, subject: 'repo:acme/app:ref:refs/heads/main', issuer: ISSUER });
  });

  it('keeps one verifier per issuer: discovery and JWKS fetched once for two logins', async () => {
    const check = login();
    expect((await check(auth(), await token())).ok).toBe(true);
    expect((await check(auth(), await token(claims({ sub: 'repo:acme/app:ref:refs/heads/dev' })))).ok).toBe(true);
    expect(discoveries()).toBe(1);
    expect(hits.get('/a/jwks')).toBe(1);
  });
});

describe('OIDC login: size and form', () => {
  it('takes a JWT of exactly 16 KiB and refuses one byte more', async () => {
    const check = login();
    const atLimit = await tokenOfSize(MAX_JWT_BYTES);
    const past = await tokenOfSize(MAX_JWT_BYTES + 1);
    expect((await check(auth(), atLimit)).ok).toBe(true);
    expectRefused(await check(auth(), past), past, 'size', /^jwt: larger than 16384 bytes$/);
  });

  it('refuses an oversized string before parsing it, and a malformed JWT as format', async () => {
    const check = login();
    expectRefused(await check(auth(), 'x'.repeat(MAX_JWT_BYTES + 1)), '', 'size');
    expectRefused(await check(auth(), 'a.b'), 'a.b', 'format');
    expectRefused(await check(auth(), 'bm90IGpzb24.e30.c2ln'), '', 'format', /header is not a JSON object/);
    expect(fetches()).toBe(0);
  });
});

describe('OIDC login: algorithm', () => {
  it.each([
    ['HS256', async () => token(claims(), { key: new TextEncoder().encode('a shared secret of thirty-two bytes!'), alg: 'HS256' })],
    [
      'RS384 (the JWK names no alg, so only the login refuses it)',
      async () => token(claims(), { alg: 'RS384', kid: 'rsa-bare', key: keys.a.rsaBare.privateKey }),
    ],
    ['none', async () => handmade({ alg: 'none', kid: 'rsa-1' }, claims())],
  ])('refuses %s before any fetch', async (_name, make) => {
    const jwt = await make();
    expectRefused(await login()(auth(), jwt), jwt, 'algorithm', /^jwt: alg must be RS256 or ES256$/);
    expect(fetches()).toBe(0);
  });

  it("refuses a token labelled RS256 whose signature is made with the kid's EC key", async () => {
    const jwt = handmade({ alg: 'RS256', kid: 'ec-bare' }, claims(), (input) =>
      cryptoSign('sha256', input, { key: keys.a.ecBare.privateKey, dsaEncoding: 'ieee-p1363' }),
    );
    expectRefused(await login()(auth(), jwt), jwt, 'algorithm', /alg does not fit the type of the issuer's key/);
  });
});

describe('OIDC login: issuer and keys', () => {
  it("refuses a token of another issuer before fetching anything, naming the key's issuer", async () => {
    const check = login();
    const other = await token(claims({ iss: `${origin}/b` }), { key: keys.b.rsa.privateKey });
    const slash = await token(claims({ iss: `${ISSUER}/` }));
    expectRefused(await check(auth(), other), other, 'issuer', /^jwt: iss is not the access key's issuer$/);
    expectRefused(await check(auth(), slash), slash, 'issuer');
    expect(fetches()).toBe(0);
  });

  it("refuses a token signed with another issuer's key under a kid of this issuer", async () => {
    const jwt = await token(claims(), { key: keys.b.rsa.privateKey, kid: 'rsa-1' });
    expectRefused(await login()(auth(), jwt), jwt, 'signature', /signature does not verify/);
  });

  it("refuses a kid that is not in the issuer's JWKS, and a token without a kid", async () => {
    const unknown = await token(claims(), { kid: 'rsa-2' });
    const none = handmade({ alg: 'RS256' }, claims(), (input) => cryptoSign('sha256', input, keys.a.rsa.privateKey));
    expectRefused(await login()(auth(), unknown), unknown, 'key', /kid is not among the issuer's signing keys/);
    expectRefused(await login()(auth(), none), none, 'key', /kid is required/);
  });
});

describe('OIDC login: claims', () => {
  it.each([
    ['another audience', { aud: 'other-api' }],
    ['an array without the audience', { aud: ['other-api', 'secrets'] }],
    ['no audience', { aud: undefined }],
  ])('refuses %s', async (_name, change) => {
    const jwt = await token(claims(change));
    expectRefused(await login()(auth(), jwt), jwt, 'audience', /^jwt: aud does not contain the access key's audience$/);
  });

  it('accepts an array audience that contains the audience', async () => {
    expect((await login()(auth(), await token(claims({ aud: ['other-api', 'secrets-api'] })))).ok).toBe(true);
  });

  it('requires exp, refuses it past the 60 s leeway and accepts it within', async () => {
    const check = login();
    const missing = await token(claims({ exp: undefined }));
    const past = await token(claims({ exp: NOW_S - 61 }));
    expectRefused(await check(auth(), missing), missing, 'expired', /exp is required/);
    expectRefused(await check(auth(), past), past, 'expired', /has expired/);
    expect(await check(auth(), await token(claims({ exp: NOW_S - 30 })))).toMatchObject({ ok: true });
  });

  it('refuses nbf in the future past the leeway, and accepts it within', async () => {
    const check = login();
    const future = await token(claims({ nbf: NOW_S + 61 }));
    expectRefused(await check(auth(), future), future, 'not_before', /not valid yet \(nbf\)/);
    expect(await check(auth(), await token(claims({ nbf: NOW_S + 30 })))).toMatchObject({ ok: true });
  });

  it('refuses iat in the future past the leeway, and accepts it within', async () => {
    const check = login();
    const future = await token(claims({ iat: NOW_S + 61 }));
    expectRefused(await check(auth(), future), future, 'issued_at', /iat is in the future/);
    expect(await check(auth(), await token(claims({ iat: NOW_S + 30 })))).toMatchObject({ ok: true });
  });

  it('matches sub with the permission glob: * stops at /, ** crosses it', async () => {
    const check = login();
    const feature = await token(claims({ sub: 'repo:acme/app:ref:refs/heads/feature/x' }));
    const missing = await token(claims({ sub: undefined }));
    expect(await check(auth(), await token())).toMatchObject({ ok: true });
    expectRefused(await check(auth(), feature), feature, 'subject', /^jwt: sub does not match the access key's subject pattern/);
    expectRefused(await check(auth(), missing), missing, 'subject', /sub is required/);
    expect(await check(auth({ subject: 'repo:acme/**' }), feature)).toEqual({
      ok: true,
      subject: 'repo:acme/app:ref:refs/heads/feature/x',
      issuer: ISSUER,
    });
    expectRefused(await check(auth({ subject: 'repo:acme/app:ref:refs/heads/main' }), feature), feature, 'subject');
  });

  it('matches sub with ? (one character other than /) and ** in the middle, whole and case-sensitive', async () => {
    const check = login();
    const main = await token();
    expect(await check(auth({ subject: 'repo:acme/app:ref:refs/heads/ma?n' }), main)).toMatchObject({ ok: true });
    expect(await check(auth({ subject: 'repo:acme/**:ref:refs/heads/main' }), main)).toMatchObject({ ok: true });
    expectRefused(await check(auth({ subject: 'repo:acme/app:ref:refs/heads/mai' }), main), main, 'subject');
    expectRefused(await check(auth({ subject: 'repo:acme/app:ref:refs/heads/Main' }), main), main, 'subject');
    expectRefused(await check(auth({ subject: 'repo:acme/app:ref:refs?heads/main' }), main), main, 'subject');
  });

  it('refuses a long sub against a pattern of many ** at once, without backtracking (the outcome; no time asserted)', async () => {
    // Prepare: a sub of 8,000 characters (the JWT may carry up to 16 KiB) that fails at its last one
    const long = await token(claims({ sub: `${'a:'.repeat(3999)}y` }));
    // Act / Assess
    expectRefused(await login()(auth({ subject: '**:**:**:**:**:**:x' }), long), long, 'subject');
    expect(await login()(auth({ subject: '**:**:**:**:**:**:y' }), long)).toMatchObject({ ok: true });
  });

  it("requires each of the key's claims as a string of the same value", async () => {
    const check = login();
    const keyed = auth({ claims: { repository: 'acme/app', environment: 'prod' } });
    expect(await check(keyed, await token(claims({ repository: 'acme/app', environment: 'prod' })))).toMatchObject({ ok: true });
    for (const [change, message] of [
      [{ repository: 'acme/app' }, /claim environment is missing/],
      [{ repository: 'acme/app', environment: 'staging' }, /claim environment does not equal the access key's value/],
      [{ repository: 'acme/app', environment: ['prod'] }, /claim environment is not a string/],
      [{ repository: 1, environment: 'prod' }, /claim repository is not a string/],
    ] as const) {
      const jwt = await token(claims(change));
      expectRefused(await check(keyed, jwt), jwt, 'claim', message);
    }
  });
});

describe('OIDC login: discovery through the SSRF guard', () => {
  it('refuses a jwks_uri that is not https, without unavailable', async () => {
    overrides.set('/a/.well-known/openid-configuration', (_req, res) =>
      json(res, { issuer: ISSUER, jwks_uri: `http://127.0.0.1:1/a/jwks` }),
    );
    const jwt = await token();
    expectRefused(await login()(auth(), jwt), jwt, 'discovery', /jwks_uri must be https/);
  });

  it('refuses an issuer on a private address unless its range is allowed, without connecting', async () => {
    const jwt = await token();
    expectRefused(await login({ allow: [] })(auth(), jwt), jwt, 'discovery', /refused by the SSRF guard/);
    expect(fetches()).toBe(0);
  });

  it('refuses a host name with one private address among public ones', async () => {
    const named = `https://issuer.test:${new URL(origin).port}/a`;
    const jwt = await token(claims({ iss: named }));
    const lookup: LookupAll = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    expectRefused(
      await login({ allow: [], lookup })(auth({ issuer: named }), jwt),
      jwt,
      'discovery',
      /^(?!.*10\.0\.0\.7).*refused by the SSRF guard/,
    );
    expect(fetches()).toBe(0);
  });

  it('connects to the address it checked (no second lookup), with the name in SNI and Host', async () => {
    const named = `https://issuer.test:${new URL(origin).port}/a`;
    const looked: string[] = [];
    const lookup: LookupAll = async (host) => (looked.push(host), [{ address: '127.0.0.1', family: 4 }]);
    const verdict = await login({ lookup })(auth({ issuer: named }), await token(claims({ iss: named })));
    expect(verdict).toMatchObject({ ok: true, issuer: named });
    // One lookup per document (discovery, JWKS): issuer.test resolves nowhere else, so the guard's answer was used.
    expect(looked).toEqual(['issuer.test', 'issuer.test']);
    expect(seen).toEqual([
      { host: `issuer.test:${new URL(origin).port}`, servername: 'issuer.test' },
      { host: `issuer.test:${new URL(origin).port}`, servername: 'issuer.test' },
    ]);
  });

  it('answers unavailable when the issuer cannot be reached', async () => {
    const unreachable = 'https://127.0.0.1:1/a';
    const jwt = await token(claims({ iss: unreachable }));
    expect(await login()(auth({ issuer: unreachable }), jwt)).toEqual({
      ok: false,
      unavailable: true,
      reason: 'discovery',
      message: expect.stringMatching(/could not be fetched \(network error: ECONNREFUSED\)/),
    });
  });

  it.each<[string, string, Handler, RegExp]>([
    [
      'discovery answers 500',
      '/a/.well-known/openid-configuration',
      (_req, res) => void res.writeHead(500).end(),
      /discovery document could not be fetched \(HTTP 500\)/,
    ],
    ['discovery is not JSON', '/a/.well-known/openid-configuration', (_req, res) => void res.writeHead(200).end('<html>'), /not JSON/],
    [
      'discovery is over 64 KiB',
      '/a/.well-known/openid-configuration',
      (_req, res) => json(res, { jwks_uri: `${ISSUER}/jwks`, pad: 'x'.repeat(70_000) }),
      /larger than 65536 bytes/,
    ],
    [
      'discovery redirects',
      '/a/.well-known/openid-configuration',
      (_req, res) => void res.writeHead(302, { location: '/b/.well-known/openid-configuration' }).end(),
      /HTTP 302, redirects are not followed/,
    ],
    ['the JWKS answers 503', '/a/jwks', (_req, res) => void res.writeHead(503).end(), /JWKS could not be fetched \(HTTP 503\)/],
    ['the JWKS is not a key set', '/a/jwks', (_req, res) => json(res, { keys: 'none' }), /JWKS is not a JSON key set/],
  ])('answers unavailable when %s', async (_name, path, handler, message) => {
    overrides.set(path, handler);
    const jwt = await token();
    expect(await login()(auth(), jwt)).toEqual({
      ok: false,
      unavailable: true,
      reason: 'discovery',
      message: expect.stringMatching(message),
    });
    expect(discoveries('b')).toBe(0);
  });

  it('tries discovery again on a later login after a failure', async () => {
    let calls = 0;
    overrides.set('/a/.well-known/openid-configuration', (req, res) => (++calls === 1 ? void res.writeHead(500).end() : answer(req, res)));
    const check = login();
    const jwt = await token();
    expect(await check(auth(), jwt)).toMatchObject({ ok: false, unavailable: true });
    expect(await check(auth(), jwt)).toMatchObject({ ok: true });
    expect(calls).toBe(2);
  });
});

describe('guarded GET', () => {
  it('gives up at its deadline on an issuer that never answers', async () => {
    overrides.set('/hang', () => undefined);
    const started = performance.now();
    const result = await guardedGet(`${origin}/hang`, { allow: LOOPBACK, timeoutMs: 200, maxBytes: 1024 });
    expect(result).toEqual({ kind: 'failed', reason: 'timed out after 0.2 s' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('OIDC login against a real OpenID provider (oidc-provider)', () => {
  it("verifies the provider's JWT access token through discovery and its JWKS", async () => {
    // Prepare
    const certificate = selfSignedCertificate();
    trustCertificate(certificate.cert);
    const provider = await startOidcIssuer(certificate);
    try {
      const jwt = await provider.mint({
        subject: 'repo:acme/app:ref:refs/heads/main',
        audience: 'secrets-api',
        claims: { repository: 'acme/app' },
      });
      const keyed = auth({ issuer: provider.issuer, claims: { repository: 'acme/app' } });
      // Act
      const check = makeOidcLogin({ allowPrivateCidrs: parseAllowedCidrs('127.0.0.0/8') });
      const verdict = await check(keyed, jwt);
      const otherAudience = await check({ ...keyed, audience: 'another-api' }, jwt);
      // Assess
      expect(verdict).toEqual({ ok: true, subject: 'repo:acme/app:ref:refs/heads/main', issuer: provider.issuer });
      expectRefused(otherAudience, jwt, 'audience');
    } finally {
      await provider.close();
    }
  });
});
