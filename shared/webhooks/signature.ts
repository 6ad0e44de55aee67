import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * Data keys of endpoints' signing secrets a container keeps open for five minutes: a warm worker makes no KMS call
 * for an endpoint whose secret it opened in that time. (Here rather than in signing-cipher.ts, whose lazy import of
 * the cipher would cost the worker an extra file at cold start: lib/lambda-bundle.ts.)
 */
export const SIGNING_SECRET_DATA_KEYS = 200;

/**
 * The `Service-Signature` header of one attempt: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. The key
 * is the WHOLE secret string, `whsec_` prefix included, exactly as Stripe's verifiers use theirs
 * (decisions.md), so receivers can verify with `stripe.webhooks.constructEvent`.
 */
export function signatureHeader(secret: string, body: string, timestampSeconds: number): string {
  const t = Math.floor(timestampSeconds);
  const digest = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},v1=${digest}`;
}

/**
 * A new signing secret: `whsec_` and 32 random bytes in base64url (43 characters). Verifiers key the HMAC with the
 * string as is and never decode it, so the encoding only has to be copy-paste and shell safe, which base64url is.
 */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** What reads show instead of the secret (decisions.md): `whsec_…` and its last four characters. */
export function secretHint(secret: string): string {
  return `${SECRET_PREFIX}…${secret.slice(-4)}`;
}
