import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../../support/api.ts';
import { loginFrom } from '../../support/login.ts';
import { startOidcIssuer, type OidcIssuer } from '../../support/oidc-issuer.ts';
import {
  auditEntries,
  epochSeconds,
  forgedJwt,
  loginKey,
  oidcLogin,
  revokeKey,
  tamperedJwt,
  workloadPlace,
} from '../../support/workload.ts';

/**
 * Workload identity with OIDC (decisions.md, "Workload identity"), end to end on the local stack: a real OpenID
 * provider (oidc-provider) over HTTPS mints the JWTs, and the service finds its keys by discovery and its JWKS.
 */

const AUDIENCE = 'secrets-service';
const SUBJECT = 'repo:acme/app:ref:refs/heads/*';
const MAIN = 'repo:acme/app:ref:refs/heads/main';
const CLAIMS = { repository: 'acme/app', environment: 'production' };
const SCOPE = [{ projects: ['payments'], environments: ['prod'], keys: ['DB_*'], actions: ['reveal'] }];

let issuer: OidcIssuer;
let stranger: OidcIssuer;

/** A token of the test issuer: by default one the key below accepts. */
const mint = (input: { subject?: string; audience?: string; claims?: Record<string, unknown> } = {}) =>
  issuer.mint({ subject: input.subject ?? MAIN, audience: input.audience ?? AUDIENCE, claims: input.claims ?? CLAIMS });

/** A fresh workspace with `payments/prod` (DB_PASSWORD in the key's scope, API_KEY outside) and an OIDC access key. */
async function keyed() {
  const place = await workloadPlace({ DB_PASSWORD: 'hunter2', API_KEY: 'not-for-ci' });
  const auth = { type: 'oidc', issuer: issuer.issuer, audience: AUDIENCE, subject: SUBJECT, claims: CLAIMS };
  const key = await loginKey(place.apiKey, { auth, permissions: SCOPE, tokenTtlSeconds: 300 });
  return { ...place, key };
}

beforeAll(async () => {
  issuer = await startOidcIssuer(inject('tls'));
  stranger = await startOidcIssuer(inject('tls'));
});

afterAll(async () => {
  await issuer?.close();
  await stranger?.close();
});

describe('OIDC login', () => {
  it("trades the issuer's JWT for a short-lived token with the key's permissions, audited with sub and issuer", async () => {
    // Prepare
    const { apiKey, key } = await keyed();
    const jwt = await mint();
    // Act
    const login = await oidcLogin(key.id, jwt);
    // Assess
    expect(key).toMatchObject({
      token: null,
      auth: { type: 'oidc', issuer: issuer.issuer, audience: AUDIENCE, subject: SUBJECT, claims: CLAIMS },
    });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ accessKeyId: key.id, identityId: key.identityId, token: expect.stringMatching(/^st_/) });
    const token = login.body.data.token as string;
    const allowed = await call('POST', '/api/v1/reveal', { token, body: { path: 'payments/prod/DB_PASSWORD' } });
    expect([allowed.status, allowed.body.data?.value]).toEqual([200, 'hunter2']);
    const outside = await call('POST', '/api/v1/reveal', { token, body: { path: 'payments/prod/API_KEY' } });
    expect([outside.status, outside.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    const entries = await auditEntries(apiKey, { action: 'access_key.login', target: key.id });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorSub: key.identityId,
      metadata: { accessKeyId: key.id, method: 'oidc', principal: MAIN, issuer: issuer.issuer },
    });
    expect(JSON.stringify(entries)).not.toContain(jwt.split('.')[2]!.slice(0, 20));
  });

  it('refuses each failed check with 401 AUTH_REQUIRED naming it, never quoting the token, audited as access_key.login_denied', async () => {
    // Prepare: one token per check, each failing that check alone
    const { apiKey, key } = await keyed();
    const genuine = await mint();
    const staging = await mint({ claims: { ...CLAIMS, environment: 'staging' } });
    const refusals: [string, string, RegExp][] = [
      ['audience', await mint({ audience: 'another-service' }), /aud does not contain the access key's audience/],
      ['subject', await mint({ subject: 'repo:acme/app:ref:refs/heads/feature/x' }), /sub does not match the access key's subject pattern/],
      ['claim', await mint({ claims: { repository: 'acme/app' } }), /claim environment is missing/],
      ['claim', staging, /claim environment does not equal the access key's value/],
      ['issuer', await stranger.mint({ subject: MAIN, audience: AUDIENCE, claims: CLAIMS }), /iss is not the access key's issuer/],
      // The issuer's iss and kid, the claims of a good token, another key: the signature is what holds.
      ['signature', await forgedJwt(genuine), /signature does not verify/],
      ['signature', tamperedJwt(staging, { environment: 'production' }), /signature does not verify/],
      ['algorithm', await forgedJwt(genuine, 'HS256'), /alg must be RS256 or ES256/],
      // Signed by the issuer itself, with a life that ended an hour ago (past the 60 s leeway).
      ['expired', await mint({ claims: { ...CLAIMS, iat: epochSeconds(-7200), exp: epochSeconds(-3600) } }), /the token has expired/],
      ['not_before', await mint({ claims: { ...CLAIMS, nbf: epochSeconds(3600) } }), /not valid yet/],
      ['issued_at', await mint({ claims: { ...CLAIMS, iat: epochSeconds(3600) } }), /iat is in the future/],
      ['size', await mint({ claims: { ...CLAIMS, padding: 'x'.repeat(16 * 1024) } }), /larger than 16384 bytes/],
    ];
    // Act / Assess: a key takes 10 refusals a minute from one address (decisions.md, "Hardening v1.3"), so the
    // checks past the tenth come from another address
    for (const [i, [reason, jwt, message]] of refusals.entries()) {
      const answer = await loginFrom(i < 10 ? '127.0.0.1' : '127.0.0.5', { accessKeyId: key.id, method: 'oidc', jwt });
      expect({ reason, status: answer.status, code: answer.body.error?.code }).toEqual({ reason, status: 401, code: 'AUTH_REQUIRED' });
      expect(answer.body.error.message).toMatch(message);
      expect(answer.body.error.message).not.toContain(jwt.split('.')[2]!.slice(0, 20));
    }
    const denied = await auditEntries(apiKey, { action: 'access_key.login_denied', target: key.id });
    expect(denied.map((entry) => entry.metadata.reason).sort()).toEqual(refusals.map(([reason]) => reason).sort());
    expect(denied.every((entry) => entry.actorSub === key.identityId && entry.metadata.method === 'oidc')).toBe(true);
    expect(await auditEntries(apiKey, { action: 'access_key.login', target: key.id })).toEqual([]);
  });

  it('revoking the key reaches a live login token on its next request, and refuses the next login', async () => {
    // Prepare
    const { apiKey, key } = await keyed();
    const token = (await oidcLogin(key.id, await mint())).body.data.token as string;
    const reveal = () => call('POST', '/api/v1/reveal', { token, body: { path: 'payments/prod/DB_PASSWORD' } });
    expect((await reveal()).status).toBe(200);
    // Act
    await revokeKey(apiKey, key.id);
    // Assess
    const revoked = await reveal();
    expect([revoked.status, revoked.body.error?.code]).toEqual([401, 'AUTH_REQUIRED']);
    expect(revoked.body.error.message).toMatch(/revoked/);
    const again = await oidcLogin(key.id, await mint());
    expect([again.status, again.body.error?.message]).toEqual([401, expect.stringMatching(/revoked/)]);
    const [denied] = await auditEntries(apiKey, { action: 'access_key.login_denied', target: key.id });
    expect(denied).toMatchObject({ metadata: { method: 'oidc', reason: 'revoked' } });
  });

  it('refuses an IAM login of an OIDC key, and a JWT that is not a compact JWS', async () => {
    // Prepare
    const { key } = await keyed();
    const signedRequest = { url: inject('stack').awsStsEndpoint, method: 'POST', headers: {}, body: '' };
    // Act
    const iam = await call('POST', '/api/v1/auth/login', { body: { accessKeyId: key.id, method: 'aws_iam', signedRequest } });
    const garbage = await oidcLogin(key.id, 'not-a-jwt');
    // Assess
    expect([iam.status, iam.body.error?.message]).toEqual([401, expect.stringMatching(/logs in with oidc, not aws_iam/)]);
    expect([garbage.status, garbage.body.error?.message]).toEqual([401, expect.stringMatching(/not a compact JWS/)]);
  });
});
