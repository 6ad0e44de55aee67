import { once } from 'node:events';
import { createServer } from 'node:https';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export interface TestIdp {
  issuer: string;
  audience: string;
  jwksUri: string;
  /** Private keys as JWKs (serialisable, so global setup can hand them to test workers). */
  signingKeys: { rs256: JWK; es256: JWK };
  close(): Promise<void>;
}

/**
 * An identity provider stand-in: an HTTPS JWKS endpoint on loopback with one RS256 and one ES256 key, served with
 * `certificate`, which whoever verifies tokens must trust.
 */
export async function startTestIdp(certificate: { cert: string; key: string }): Promise<TestIdp> {
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const ec = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = async (key: CryptoKey, kid: string, alg: string) => ({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
  const jwks = JSON.stringify({ keys: [await publicJwk(rsa.publicKey, 'rsa-1', 'RS256'), await publicJwk(ec.publicKey, 'ec-1', 'ES256')] });
  const { cert, key } = certificate;
  const server = createServer({ cert, key }, (request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    issuer: 'https://idp.test.local/',
    audience: 'secrets-api',
    jwksUri: `https://127.0.0.1:${port}/.well-known/jwks.json`,
    signingKeys: {
      rs256: { ...(await exportJWK(rsa.privateKey)), kid: 'rsa-1', alg: 'RS256' },
      es256: { ...(await exportJWK(ec.privateKey)), kid: 'ec-1', alg: 'ES256' },
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
