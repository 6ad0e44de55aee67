import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * Data keys of endpoints' signing secrets a container keeps open for five minutes: a warm worker makes no KMS call
 * for an endpoint whose secrets (two during a rotation's overlap) it opened in that time. The webhooks route group's
 * cipher keeps as many; each function builds its cipher from the platform's (the worker's at cold start, the route
 * group's on first use), so this module holds only the figure.
 */
export const SIGNING_SECRET_DATA_KEYS = 200;

/**
 * The `Service-Signature` header of one attempt: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1=`
 * per signing secret, newest first. An endpoint has one secret, or two while a rotated-out secret keeps signing until
 * it expires (decisions.md, "Webhook operations"): a receiver that verifies with either finds its `v1`, as Stripe's
 * verifiers accept any of several. The key is the WHOLE secret string, `whsec_` prefix included, exactly as Stripe's
 * verifiers use theirs (decisions.md), so receivers can verify with `stripe.webhooks.constructEvent`.
 */
export function signatureHeader(secrets: readonly string[], body: string, timestampSeconds: number): string {
  if (secrets.length === 0) throw new Error('a signature needs at least one signing secret');
  const t = Math.floor(timestampSeconds);
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex')}`);
  return `t=${t},${signatures.join(',')}`;
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

/**
 * Until when the secret a rotation replaced still signs, as of `now` (epoch ms): its expiry while that is in the
 * future, else null (none, or expired). The worker signs with it only then; the API shows the expiry only then.
 */
export function previousSecretExpiry(endpoint: { previousSecretExpiresAt?: string | null | undefined }, now: number): string | null {
  const until = endpoint.previousSecretExpiresAt;
  return until && Date.parse(until) > now ? until : null;
}
