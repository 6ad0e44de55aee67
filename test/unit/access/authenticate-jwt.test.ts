import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT } from 'jose';
import { checkAccessTokenHeader, makeAccessTokenVerifier, makeAuthenticator, personActor } from '../../../shared/access/authenticate.ts';
import { ServiceUnavailableError } from '../../../shared/platform/errors.ts';
import { testMacs } from '../support/fakes.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';
const ISSUER = 'https://idp.example.test/';

describe('IdP subjects', () => {
  it('map one to one: no two subjects share an actor', () => {
    // Prepare: subjects that collided before (alice and usr_alice), our own ids, bare ids, and escapes
    const subjects = [
      'alice',
      'usr_alice',
      '~alice',
      'usr_~alice',
      'usr_01JAAAAAAAAAAAAAAAAAAAAAAA',
      '01JAAAAAAAAAAAAAAAAAAAAAAA',
      'auth0|123',
      'usr_',
    ];
    // Act
    const actors = subjects.map(personActor);
    // Assess
    expect(new Set(actors).size).toBe(subjects.length);
    expect(actors.every((actor) => actor.startsWith('usr_'))).toBe(true);
    expect(personActor('alice')).toBe('usr_alice');
    expect(personActor('usr_01JAAAAAAAAAAAAAAAAAAAAAAA')).toBe('usr_01JAAAAAAAAAAAAAAAAAAAAAAA');
  });
});

describe('access token headers', () => {
  it('with a required type, take at+jwt (any case, with or without application/) and refuse an ID token', () => {
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt'])
      expect(() => checkAccessTokenHeader({ alg: 'RS256', typ }, 'at+jwt')).not.toThrow();
    for (const typ of ['JWT', undefined, 'id+jwt'])
      expect(() => checkAccessTokenHeader({ alg: 'RS256', typ }, 'at+jwt')).toThrow('wrong token type');
    expect(() => checkAccessTokenHeader({ alg: 'RS256', typ: 'JWT' }, undefined)).not.toThrow();
    expect(() => checkAccessTokenHeader({ alg: 'HS256', typ: 'at+jwt' }, 'at+jwt')).toThrow('unsupported algorithm');
  });
});

describe('an unreachable JWKS', () => {
  it('answers SERVICE_UNAVAILABLE, not AUTH_REQUIRED: the IdP is down, the token may be fine', async () => {
    // Prepare: a JWKS address nothing listens on, and a well-formed token with a key id
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const jwksUri = `https://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'alice', workspace_id: WS })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience('api')
      .setExpirationTime('5m')
      .sign(privateKey);
    const authenticate = makeAuthenticator({
      store: {
        getCredentialContext: async () => {
          throw new Error('not reached');
        },
        touchCredential: async () => undefined,
      },
      clock: { now: () => Date.now() },
      macs: testMacs,
      jwt: {
        verify: makeAccessTokenVerifier({ issuer: ISSUER, audience: 'api', jwksUri }),
        workspaceClaim: 'workspace_id',
        roleClaim: 'roles',
        defaultRole: 'viewer',
      },
    });
    // Act / Assess
    await expect(authenticate(`Bearer ${token}`)).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
